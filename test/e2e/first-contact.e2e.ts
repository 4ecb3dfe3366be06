import * as fs from "fs";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { labApi, startLab, stopLab } from "./lab";
import { exampleConfig, projectCopy, Stack, writeWmcoKey } from "./project";

// First contact (issue 24 a), as a user has it: the project copied and built, `pulumi stack init`, the stack's
// config file, then the real CLI v3.248.0 with the real pulumi-resource-kubernetes against the lab's real API
// server. OLM, WMCO and the machine controller are the lab's players. What is asserted comes from the CLI's own
// output and from the API server.

const NS = "openshift-windows-machine-config-operator";

describe("the dev stack (Azure) through the real CLI", () => {
  const LAB = "e2e-first-azure";
  let lab: LabInfo;
  let stack: Stack;
  beforeAll(() => {
    lab = startLab("azure", LAB);
    const dir = projectCopy();
    writeWmcoKey(dir);
    stack = new Stack(dir, "e2e", lab);
    stack.init(exampleConfig(dir, "Pulumi.dev.yaml"));
  }, 900_000);
  afterAll(() => stopLab(LAB));

  test("preview plans the estate and creates nothing", async () => {
    const p = stack.previewJson();
    expect(p.stderr).not.toMatch(/error:/);
    expect(p.status).toBe(0);
    const creates = p.steps.filter((s) => s.op === "create").map((s) => s.urn.split("::").pop());
    expect(creates).toEqual(
      expect.arrayContaining([
        "estate-operator-namespace",
        "estate-operator-operatorgroup",
        "estate-operator-subscription",
        "estate-operator-ready",
        "estate-key-secret",
        "estate-windows-user-data",
        "estate-ms-winworker-machineset",
      ]),
    );
    const api = labApi(lab);
    expect(await api.status(`/api/v1/namespaces/${NS}`)).toBe(404);
  });

  test("up installs WMCO through OLM, hands over the key, waits for windows-user-data, then creates the MachineSet", async () => {
    const up = stack.pulumi(["up", "--yes", "--skip-preview"]);
    expect(up.stdout + up.stderr).not.toMatch(/error:/);
    expect(up.status).toBe(0);
    const api = labApi(lab);
    const sub = await api.get(
      `/apis/operators.coreos.com/v1alpha1/namespaces/${NS}/subscriptions/windows-machine-config-operator`,
    );
    const csv = await api.get(
      `/apis/operators.coreos.com/v1alpha1/namespaces/${NS}/clusterserviceversions/${sub.status.installedCSV}`,
    );
    expect(csv.status.phase).toBe("Succeeded");
    expect(stack.pulumi(["stack", "output", "installedCSV"]).stdout.trim()).toBe(sub.status.installedCSV);
    const key = await api.get(`/api/v1/namespaces/${NS}/secrets/cloud-private-key`);
    expect(Object.keys(key.data)).toEqual(["private-key.pem"]);
    await api.get("/api/v1/namespaces/openshift-machine-api/secrets/windows-user-data");
    const ms = await api.get(
      "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets/winworker",
    );
    expect(ms.spec.replicas).toBe(1);
    expect(ms.spec.template.spec.providerSpec.value.kind).toBe("AzureMachineProviderSpec");
    // The key never reaches the state in plaintext.
    const state = stack.pulumi(["stack", "export"]).stdout;
    const pem = fs.readFileSync(path.join(stack.dir, ".dev", "wmco-dev-key.pem"), "utf8");
    expect(state).not.toContain(pem.split("\n")[1]);
  });

  test("a second up changes nothing (--expect-no-changes), nor does a refresh", () => {
    const again = stack.pulumi(["up", "--yes", "--expect-no-changes"]);
    expect(again.stdout + again.stderr).not.toMatch(/error:/);
    expect(again.status).toBe(0);
    const refresh = stack.pulumi(["refresh", "--yes", "--expect-no-changes"]);
    expect(refresh.stdout + refresh.stderr).not.toMatch(/error:/);
    expect(refresh.status).toBe(0);
  });
});

describe("the AWS example against OpenShift 4.20", () => {
  const LAB = "e2e-first-aws";
  let lab: LabInfo;
  let stack: Stack;
  beforeAll(() => {
    lab = startLab("aws", LAB);
    const dir = projectCopy();
    writeWmcoKey(dir);
    stack = new Stack(dir, "e2e", lab);
    const config = exampleConfig(dir, "stacks/examples/Pulumi.aws.yaml");
    // The example turns discovery off to render offline; against a cluster it is on.
    const cluster = config["windows-estate:cluster"] as Record<string, unknown>;
    delete cluster.discovery;
    stack.init(config);
  }, 900_000);
  afterAll(() => stopLab(LAB));

  test("preview refuses Windows Server 2025, which WMCO 10.20 (OpenShift 4.20) does not support on AWS, and creates nothing", async () => {
    const p = stack.pulumi(["preview"]);
    expect(p.status).not.toBe(0);
    // facts/wmco.ts supportedWindowsServers: 2025 from WMCO 10.21 (release-4.21 test/e2e/windows/version.go).
    expect(p.stdout).toContain(
      "windows-estate:machineSets[1].windowsServer: Windows Server 2025 is not supported on AWS by WMCO 10.20 (from the cluster version 4.20.4)",
    );
    expect(await labApi(lab).status(`/api/v1/namespaces/${NS}`)).toBe(404);
  });
});
