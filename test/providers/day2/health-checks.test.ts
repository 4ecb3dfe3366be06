import { selectorMatches } from "../../../providers/day2/health-checks";

// metav1.LabelSelector semantics (apimachinery labels.Selector): matchLabels all equal, every expression holds, an
// empty selector selects everything, an unknown operator selects nothing.
const labels = { "machine.openshift.io/cluster-api-machineset": "win-ms", role: "worker" };

test.each([
  [{}, true],
  [{ matchLabels: { role: "worker" } }, true],
  [{ matchLabels: { role: "master" } }, false],
  [{ matchExpressions: [{ key: "role", operator: "In", values: ["worker", "infra"] }] }, true],
  [{ matchExpressions: [{ key: "role", operator: "NotIn", values: ["worker"] }] }, false],
  [{ matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] }, true],
  [{ matchExpressions: [{ key: "role", operator: "Exists" }] }, true],
  [{ matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] }, true],
  [{ matchExpressions: [{ key: "role", operator: "Gt", values: ["1"] }] }, false],
  [{ matchExpressions: [{ key: "role", operator: "constructor" }] }, false],
  [{ matchLabels: { role: "worker" }, matchExpressions: [{ key: "zone", operator: "Exists" }] }, false],
])("%j selects the Machine: %s", (selector, expected) => {
  expect(selectorMatches(selector, labels)).toBe(expected);
});
