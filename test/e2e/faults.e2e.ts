import type { LabInfo } from "../../lab/record";
import { labApi, labCommand, stopLab } from "./lab";
import { labStack, Stack } from "./project";

// The cluster's API server going away (issue 24 d), with the real one: `npm run lab -- apiserver stop` ends the lab's
// kube-apiserver (etcd, the controller manager and the players stay up), `apiserver start` starts it again on the
// same port. What a user must get: a failure naming what could not be reached, a state that still describes the
// cluster, and a next `up` that converges. (A host down is in byoh.e2e.ts.)

const LAB = "e2e-faults";
let lab: LabInfo;
let stack: Stack;
let config: Record<string, unknown>;
const mirrors = () => config["windows-estate:mirrors"] as { digest: Record<string, unknown>[] };
const IDMS = "/apis/config.openshift.io/v1/imagedigestmirrorsets/windows-estate-digest-quay-io-example-app";

function apiserver(action: "stop" | "start"): void {
  const r = labCommand(["apiserver", action, "--name", LAB]);
  if (r.status !== 0) throw new Error(`lab apiserver ${action} failed: ${r.stderr}`);
}
/** The resources the state holds, by logical name. */
const stateNames = () =>
  (
    JSON.parse(stack.pulumi(["stack", "export"]).stdout) as { deployment: { resources: { urn: string }[] } }
  ).deployment.resources
    .map((r) => r.urn.split("::").pop())
    .sort();

beforeAll(async () => {
  ({ lab, stack, config } = await labStack("azure", LAB, { file: "Pulumi.dev.yaml", up: true }));
}, 900_000);
afterAll(() => stopLab(LAB));

test("with the API server down, up fails naming the object and the API; the state is intact; once back, up converges", async () => {
  const before = stateNames();
  mirrors().digest.push({ source: "quay.io/example/app", mirrors: ["mirror.example.com:5000/example/app"] });
  stack.writeConfig(config);
  apiserver("stop");
  try {
    const r = stack.pulumi(["up", "--yes", "--skip-preview"], 600_000);
    expect(r.status).not.toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toContain(new URL(lab.apiserver).host);
    expect(out).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // a message, not a stack trace
    expect(stateNames()).toEqual(before);
  } finally {
    apiserver("start");
  }
  stack.up();
  expect((await labApi(lab).get(IDMS)).spec.imageDigestMirrors[0].source).toBe("quay.io/example/app");
  expect(stack.pulumi(["up", "--yes", "--expect-no-changes"]).status).toBe(0);
});

test("refresh with the API server down fails naming the API and leaves the state as it was", () => {
  const before = stack.pulumi(["stack", "export"]).stdout;
  apiserver("stop");
  try {
    const r = stack.pulumi(["refresh", "--yes"], 600_000);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(new URL(lab.apiserver).host);
    expect(stack.pulumi(["stack", "export"]).stdout).toEqual(before);
  } finally {
    apiserver("start");
  }
  expect(stack.pulumi(["refresh", "--yes", "--expect-no-changes"]).status).toBe(0);
});
