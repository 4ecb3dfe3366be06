// openshiftVersionFor (lab/seed/openshift.ts) takes the newest WMCO release by version, whatever order the fact table
// lists them in: here facts/wmco.ts `wmcoForKubernetesMinor` answers newest first.
jest.mock("../../facts/wmco", () => {
  const actual = jest.requireActual("../../facts/wmco");
  return { ...actual, wmcoForKubernetesMinor: (minor: number) => actual.wmcoForKubernetesMinor(minor).reverse() };
});

import { wmcoForKubernetesMinor } from "../../facts/wmco";
import { openshiftVersionFor } from "../../lab/seed/openshift";

test("the newest WMCO that accepts the minor, by version, not by the table's order", () => {
  expect(wmcoForKubernetesMinor(35)).toEqual(["10.22", "10.21"]); // the order this file gives
  expect(openshiftVersionFor("v1.35.2")).toBe("4.22.0"); // as test/lab-cli/openshift-version.test.ts, in table order
});
