import { buildRuntimeClass } from "../../../components/scheduling/runtime-class";
import { validateObject } from "../../helpers/schemas";

test.each([
  ["2019", "10.0.17763"],
  ["2022", "10.0.20348"],
  ["2025", "10.0.26100"],
] as const)("windows%s selects build %s and tolerates the Windows taint", (v, build) => {
  const rc = buildRuntimeClass(v);
  expect(rc.metadata.name).toBe(`windows${v}`);
  expect(rc.handler).toBe("runhcs-wcow-process");
  expect(rc.scheduling.nodeSelector).toMatchObject({
    "kubernetes.io/os": "windows",
    "node.kubernetes.io/windows-build": build,
  });
  expect(rc.scheduling.tolerations).toContainEqual({
    key: "os",
    operator: "Equal",
    value: "Windows",
    effect: "NoSchedule",
  });
  expect(validateObject(rc, { closed: true })).toBe("");
});
