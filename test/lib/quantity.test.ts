import { canonicalQuantity, quantityBytes } from "../../lib/quantity";
import { machineSetSchema } from "../../stacks/schema/machinesets";

// What k8s.io/apimachinery v0.34.1 (machine-api-operator 88465550a74b's pin) writes back for each quantity:
// json.Unmarshal into a resource.Quantity, then json.Marshal, run once with that module to fill this table.
const GO_WRITES: [string, string][] = [
  ["16Gi", "16Gi"],
  ["120Gi", "120Gi"],
  ["16384Mi", "16Gi"],
  ["1536Mi", "1536Mi"],
  ["1.5Gi", "1536Mi"],
  ["0120Gi", "120Gi"],
  ["3Gi", "3Gi"],
  ["3072Mi", "3Gi"],
  ["1024Ki", "1Mi"],
  ["0.5Ki", "512"],
  ["0.9765625Ki", "1k"],
  ["1.0009765625Ki", "1025"],
  ["0Gi", "0"],
  ["1048576Ti", "1Ei"],
  ["2048Ti", "2Pi"],
  ["1.0Gi", "1Gi"],
  ["8Gi", "8Gi"],
  ["1025Mi", "1025Mi"],
];

test.each(GO_WRITES)("%s is written as Kubernetes writes it back: %s", (q, written) => {
  expect(canonicalQuantity(q)).toBe(written);
});

test("the canonical form is what Go keeps: its own canonical form", () => {
  // Go keeps the text of a binary quantity whose number is not a multiple of 8 as it came ("01Gi" stays "01Gi"), so
  // what the builders write must already be canonical for the round trip to change nothing.
  for (const [, written] of GO_WRITES) if (/[KMGTPE]i$/.test(written)) expect(canonicalQuantity(written)).toBe(written);
  expect(canonicalQuantity("01Gi")).toBe("1Gi");
});

test("a quantity that is not a whole number of bytes is refused by the schema, naming an example", () => {
  expect(quantityBytes("1.3Gi")).toBeUndefined();
  expect(quantityBytes("1.5Gi")).toBe(1610612736n);
  const r = machineSetSchema.safeParse({ nutanix: { image: "win2022", memorySize: "1.3Gi" } });
  expect(r.success).toBe(false);
  expect(JSON.stringify(r.error?.issues)).toContain("must be a whole number of bytes, like 1536Mi (1.3Gi is not)");
  expect(machineSetSchema.safeParse({ nutanix: { image: "win2022", memorySize: "1.5Gi" } }).success).toBe(true);
});
