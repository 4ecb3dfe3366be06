import * as fs from "fs";
import * as net from "net";
import { alive, connects } from "../../lab/processes";
import { readRecord } from "../../lab/record";
import { labApi, labCommand, startLab, stopLab, withLab } from "./lab";
import type { LabInfo } from "../../lab/record";

// The lab itself, as issue 23 asks: built programs that report their real versions, the real CRDs served, the
// cluster seeded as the platform presents itself, and start/stop that leave nothing behind or half-done.

describe("an AWS lab", () => {
  const NAME = "e2e-lab-aws";
  let info: LabInfo;
  beforeAll(() => {
    info = startLab("aws", NAME);
  });
  afterAll(() => stopLab(NAME));

  test("prints the JSON line with every variable a shell needs", () => {
    expect(Object.keys(info).sort()).toEqual(["apiserver", "env", "kubeconfig", "pulumi", "version"]);
    expect(Object.keys(info.env).sort()).toEqual([
      "KUBECONFIG",
      "PATH",
      "PULUMI_BACKEND_URL",
      "PULUMI_CONFIG_PASSPHRASE",
      "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION",
      "PULUMI_HOME",
      "PULUMI_SKIP_UPDATE_CHECK",
    ]);
    expect(info.apiserver).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(info.env.PULUMI_BACKEND_URL).toMatch(/^file:\/\//);
  });

  test("`pulumi version` with its env is v3.248.0 from an ELF binary built here (the version package-lock pins)", () => {
    const which = withLab(info, "sh", ["-c", 'readlink -f "$(command -v pulumi)"']);
    const binary = which.stdout.trim();
    expect(binary).not.toContain("node_modules");
    expect(fs.readFileSync(binary).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    const v = withLab(info, "pulumi", ["version"]);
    expect(v.stdout.trim()).toBe("v3.248.0");
    expect(info.pulumi).toBe("v3.248.0");
    const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8")) as {
      packages: Record<string, { version: string }>;
    };
    expect(`v${lock.packages["node_modules/@pulumi/pulumi"].version}`).toBe(v.stdout.trim());
  });

  test("the API server's /version is v1.36.x", async () => {
    const v = (await labApi(info).get("/version")) as { gitVersion: string };
    expect(v.gitVersion).toMatch(/^v1\.36\.\d+$/);
    expect(info.version).toBe(v.gitVersion);
  });

  test("the real CRDs are served (OLM v0.41.0's own, OpenShift from openshift/api)", async () => {
    const list = await labApi(info).get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
    const names = (list.items as { metadata: { name: string } }[]).map((c) => c.metadata.name).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        "subscriptions.operators.coreos.com",
        "operatorgroups.operators.coreos.com",
        "clusterserviceversions.operators.coreos.com",
        "installplans.operators.coreos.com",
        "olmconfigs.operators.coreos.com",
        "operatorconditions.operators.coreos.com",
        "apiservers.config.openshift.io",
        "infrastructures.config.openshift.io",
        "networks.config.openshift.io",
        "proxies.config.openshift.io",
        "clusterversions.config.openshift.io",
        "imagedigestmirrorsets.config.openshift.io",
        "imagetagmirrorsets.config.openshift.io",
        "machinesets.machine.openshift.io",
        "machines.machine.openshift.io",
        "networks.operator.openshift.io",
      ]),
    );
    // Served means validated: the real schema refuses what a hand-written stand-in would have taken.
    const refused = await labApi(info).request("POST", "/apis/config.openshift.io/v1/imagedigestmirrorsets", {
      apiVersion: "config.openshift.io/v1",
      kind: "ImageDigestMirrorSet",
      metadata: { name: "bad" },
      spec: { imageDigestMirrors: [{ source: "registry.example.com/a", mirrorSourcePolicy: "Sometimes" }] },
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain("mirrorSourcePolicy");
  });

  test("Infrastructure/cluster says AWS, with the example stack's infrastructure name", async () => {
    const infra = (await labApi(info).get("/apis/config.openshift.io/v1/infrastructures/cluster")) as {
      status: { infrastructureName: string; platformStatus: { type: string; aws: { region: string } } };
    };
    expect(infra.status.platformStatus.type).toBe("AWS");
    expect(infra.status.platformStatus.aws.region).toBe("us-east-1");
    expect(infra.status.infrastructureName).toBe("ocp-aws-x7k2p"); // stacks/examples/Pulumi.aws.yaml
  });

  test("the real OLM runs: olm and catalog v0.41.0, opm v1.64.0, each catalog READY and serving the channel made from facts/", async () => {
    expect(withLab(info, "olm", ["--version"]).stdout).toContain("v0.41.0");
    expect(withLab(info, "catalog", ["--version"]).stdout).toContain("v0.41.0");
    expect(withLab(info, "opm", ["version"]).stdout).toContain('"v1.64.0"');
    const names = readRecord(NAME)?.processes.map((p) => p.name) ?? [];
    expect(names).toEqual(
      expect.arrayContaining(["opm-redhat-operators", "opm-community-operators", "olm", "catalog"]),
    );
    const api = labApi(info);
    for (const source of ["redhat-operators", "community-operators"]) {
      const cs = await api.get(
        `/apis/operators.coreos.com/v1alpha1/namespaces/openshift-marketplace/catalogsources/${source}`,
      );
      expect(cs.spec.sourceType).toBe("grpc");
      expect(cs.spec.address).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(cs.status.connectionState.lastObservedState).toBe("READY");
    }
  });

  test("machine-api-operator's machineset runs, its webhooks registered as MAO registers them, on 127.0.0.1 with the lab's CA", async () => {
    expect(readRecord(NAME)?.processes.map((p) => p.name)).toContain("machineset");
    const api = labApi(info);
    const mutating = await api.get("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/machine-api");
    const validating = await api.get(
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/machine-api",
    );
    const hooks = [...mutating.webhooks, ...validating.webhooks] as {
      name: string;
      failurePolicy: string;
      clientConfig: { url: string; caBundle: string };
      rules: { resources: string[]; operations: string[] }[];
    }[];
    // machine-api-operator pkg/webhooks/config.go: names, paths, CREATE for defaulting, CREATE/UPDATE for validation.
    expect(
      hooks.map((h) => [h.name, h.clientConfig.url.replace(/:\d+\//, ":P/"), h.rules[0].operations.join()]),
    ).toEqual([
      [
        "default.machine.machine.openshift.io",
        "https://127.0.0.1:P/mutate-machine-openshift-io-v1beta1-machine",
        "CREATE",
      ],
      [
        "default.machineset.machine.openshift.io",
        "https://127.0.0.1:P/mutate-machine-openshift-io-v1beta1-machineset",
        "CREATE",
      ],
      [
        "validation.machine.machine.openshift.io",
        "https://127.0.0.1:P/validate-machine-openshift-io-v1beta1-machine",
        "CREATE,UPDATE",
      ],
      [
        "validation.machineset.machine.openshift.io",
        "https://127.0.0.1:P/validate-machine-openshift-io-v1beta1-machineset",
        "CREATE,UPDATE",
      ],
    ]);
    expect(new Set(hooks.map((h) => h.failurePolicy))).toEqual(new Set(["Ignore"]));
    const ca = fs.readFileSync(`${readRecord(NAME)?.runDir}/pki/ca.crt`, "utf8");
    for (const h of hooks) expect(Buffer.from(h.clientConfig.caBundle, "base64").toString("utf8")).toBe(ca);
    // In force: the validating webhook refuses a MachineSet whose selector does not match its template, in its words
    // (machineset_webhook.go validateMachineSetSpec); the controller made Machines for the seeded Linux set.
    const refused = await api.request(
      "POST",
      "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets?dryRun=All",
      {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "MachineSet",
        metadata: { name: "mismatch" },
        spec: {
          selector: { matchLabels: { a: "1" } },
          template: { metadata: { labels: { a: "2" } }, spec: { providerSpec: { value: {} } } },
        },
      },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain(
      'admission webhook "validation.machineset.machine.openshift.io" denied the request: ',
    );
    expect(refused.body.message).toContain("`selector` does not match template `labels`");
    await api.until(
      "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines",
      (l) => l.items.length === 2,
      "the seeded Linux MachineSet's 2 Machines",
    );
  });

  test("a second start of the same lab is refused and leaves the first running", () => {
    const before = readRecord(NAME);
    const r = labCommand(["start", "--platform", "aws", "--name", NAME]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(
      new RegExp(`^lab: a lab named "${NAME}" is already running .*stop it with \`npm run lab -- stop\``),
    );
    expect(readRecord(NAME)).toEqual(before);
    expect(before?.processes.every((p) => alive(p.pid))).toBe(true);
  });
});

test("stop of an OpenShift lab ends OLM and opm too: nothing of it runs or listens", async () => {
  const NAME = "e2e-lab-stop-olm";
  const info = startLab("azure", NAME, ["--no-players"]);
  const record = readRecord(NAME);
  const api = labApi(info);
  const sources = await api.get("/apis/operators.coreos.com/v1alpha1/namespaces/openshift-marketplace/catalogsources");
  const ports = (sources.items as { spec: { address: string } }[]).map((c) => Number(c.spec.address.split(":")[1]));
  expect(ports).toHaveLength(2);
  expect(labCommand(["stop", "--name", NAME]).status).toBe(0);
  for (const p of record?.processes ?? []) expect(alive(p.pid)).toBe(false);
  for (const port of ports) expect(await connects(port)).toBe(false);
});

test("stop ends exactly what start started and removes its folder; a second stop says nothing runs", () => {
  const NAME = "e2e-lab-stop";
  startLab("none", NAME, ["--no-players"]);
  const record = readRecord(NAME);
  expect(record?.processes.map((p) => p.name)).toEqual([
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
  ]);
  const r = labCommand(["stop", "--name", NAME]);
  expect(r.status).toBe(0);
  for (const p of record?.processes ?? []) expect(alive(p.pid)).toBe(false);
  expect(fs.existsSync(record?.runDir ?? "/")).toBe(false);
  expect(readRecord(NAME)).toBeUndefined();
  const again = labCommand(["stop", "--name", NAME]);
  expect(again.status).toBe(1);
  expect(again.stderr).toContain(`no lab named "${NAME}" is running`);
});

test("stop of an OpenShift lab ends machineset: nothing listens on its webhook port any more", async () => {
  const NAME = "e2e-lab-stop-openshift";
  const info = startLab("gcp", NAME, ["--no-players"]);
  const record = readRecord(NAME);
  const hook = await labApi(info).get(
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/machine-api",
  );
  const port = Number(new URL(hook.webhooks[0].clientConfig.url).port);
  expect(await connects(port)).toBe(true);
  expect(labCommand(["stop", "--name", NAME]).status).toBe(0);
  for (const p of record?.processes ?? []) expect(alive(p.pid)).toBe(false);
  expect(await connects(port)).toBe(false);
});

test("a taken API server port is refused before anything starts", async () => {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as net.AddressInfo).port;
  try {
    const r = labCommand(["start", "--name", "e2e-lab-port", "--apiserver-port", String(port)]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      `lab: port ${port} on 127.0.0.1 (the API server) is already in use: stop what listens there or choose another with --apiserver-port`,
    );
    expect(readRecord("e2e-lab-port")).toBeUndefined();
  } finally {
    server.close();
  }
});
