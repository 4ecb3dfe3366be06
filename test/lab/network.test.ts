import { egressAllowed } from "../../lab/players/network";

// NetworkPolicy egress semantics as k8s.io/api networking/v1 types.go documents them (`policyTypes`, `egress`,
// `NetworkPolicyPeer.ipBlock` with `except`, `NetworkPolicyPort` defaulting to TCP): the WMCO player's view of
// whether its pod can open SSH to a host.
const policy = (spec: Record<string, unknown>) => ({ metadata: { name: "p" }, spec });

test("no policy selecting the operator's pod for egress: every destination is allowed", () => {
  expect(egressAllowed([], "10.0.0.5", 22)).toBe(true);
  // Ingress-only policies do not restrict egress.
  expect(egressAllowed([policy({ podSelector: {}, policyTypes: ["Ingress"] })], "10.0.0.5", 22)).toBe(true);
  // A policy selecting other pods does not either.
  expect(
    egressAllowed(
      [policy({ podSelector: { matchLabels: { app: "other" } }, policyTypes: ["Egress"], egress: [] })],
      "10.0.0.5",
      22,
    ),
  ).toBe(true);
});

test("an egress policy with no rules denies everything", () => {
  expect(egressAllowed([policy({ podSelector: {}, policyTypes: ["Egress"] })], "10.0.0.5", 22)).toBe(false);
});

test("ipBlock cidr with except, and ports", () => {
  const p = policy({
    podSelector: { matchLabels: { name: "windows-machine-config-operator" } },
    policyTypes: ["Egress"],
    egress: [{ to: [{ ipBlock: { cidr: "10.0.0.0/16", except: ["10.0.9.0/24"] } }], ports: [{ port: 22 }] }],
  });
  expect(egressAllowed([p], "10.0.0.5", 22)).toBe(true);
  expect(egressAllowed([p], "10.0.9.5", 22)).toBe(false);
  expect(egressAllowed([p], "10.1.0.5", 22)).toBe(false);
  expect(egressAllowed([p], "10.0.0.5", 5986)).toBe(false);
});

test("rules of several policies add up; a rule naming only pod selectors admits no host outside the cluster", () => {
  const pods = policy({ podSelector: {}, policyTypes: ["Egress"], egress: [{ to: [{ podSelector: {} }] }] });
  const hosts = policy({
    podSelector: {},
    policyTypes: ["Egress"],
    egress: [{ to: [{ ipBlock: { cidr: "0.0.0.0/0" } }] }],
  });
  expect(egressAllowed([pods], "10.0.0.5", 22)).toBe(false);
  expect(egressAllowed([pods, hosts], "10.0.0.5", 22)).toBe(true);
});

test("matchExpressions select the operator's pod", () => {
  const p = (operator: string, values: string[]) =>
    policy({
      podSelector: { matchExpressions: [{ key: "name", operator, values }] },
      policyTypes: ["Egress"],
    });
  expect(egressAllowed([p("In", ["windows-machine-config-operator"])], "10.0.0.5", 22)).toBe(false);
  expect(egressAllowed([p("NotIn", ["windows-machine-config-operator"])], "10.0.0.5", 22)).toBe(true);
});
