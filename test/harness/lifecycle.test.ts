import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { FakeKube } from "../helpers/fake-kube";
import { Ec2StandIn } from "../helpers/ec2-stand-in";
import { labWindows, LabWindows } from "../lab/lab-windows";
import { withSession } from "../../providers/ssh/session";
import { wmcoSubscription } from "../helpers/olm-objects";
import { PROJECT_DIR, DynamicPlugin } from "./dynamic-plugin";
import { ResourceState, StackState, Step, ROOT_STACK_TYPE } from "./engine";
import { destroy, refresh, renameStack } from "./operations";
import { runProgram, RunResult, stackConfig, StackConfig } from "./program";
import { reveal, secret } from "./wire";

// Several `pulumi up`s in a row on the same recorded state, through the real language host and dynamic-provider
// plugin: the engine stand-in decides each step (pulumi/pulumi step_generator.go, pulumi-kubernetes diff.go), wait
// resources talk to a local Kubernetes API stand-in, WindowsHost to real sshd lab hosts with a simulated PowerShell.
jest.setTimeout(300_000);

const NS = "openshift-windows-machine-config-operator";
const CSV = "windows-machine-config-operator.v10.19.3";
const DEV_FILE = path.join(PROJECT_DIR, "Pulumi.dev.yaml");

let kube: FakeKube;
let nodes: { metadata: { name: string; labels: Record<string, string> } }[] = [];
let hosts: LabWindows[] = [];
let keyFile: string;
/** The public key WMCO's stand-in puts in windows-user-data (default: the WMCO key of these tests). */
let userDataKey: string | undefined;

beforeAll(async () => {
  kube = new FakeKube();
  kube.route(
    `/apis/operators.coreos.com/v1alpha1/namespaces/${NS}/subscriptions/windows-machine-config-operator`,
    () => ({
      status: 200,
      body: wmcoSubscription(CSV, { currentCSV: CSV, state: "AtLatestKnown" }),
    }),
  );
  kube.route(`/apis/operators.coreos.com/v1alpha1/namespaces/${NS}/clusterserviceversions/${CSV}`, () => ({
    status: 200,
    body: {
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "ClusterServiceVersion",
      metadata: { name: CSV, namespace: NS },
      spec: { version: "10.19.3" },
      status: { phase: "Succeeded" },
    },
  }));
  kube.route("/api/v1/namespaces/openshift-machine-api/secrets/windows-user-data", () => ({
    status: 200,
    body: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "windows-user-data", namespace: "openshift-machine-api", resourceVersion: "5", uid: "ud-1" },
      // WMCO's user data carries the public half of cloud-private-key (pkg/secrets/secrets.go GenerateUserData): here the
      // WMCO key of these tests, the first lab host's user key.
      data: {
        userData: Buffer.from(`<powershell>\n${userDataKey ?? hosts[0]?.host.publicKey ?? ""}\n</powershell>`).toString(
          "base64",
        ),
      },
    },
  }));
  kube.route("/api/v1/nodes", () => ({
    status: 200,
    body: { apiVersion: "v1", kind: "NodeList", metadata: {}, items: nodes },
  }));
  await kube.start();
  hosts = [await labWindows("127.0.0.21", "win-byoh-1"), await labWindows("127.0.0.22", "win-byoh-2")];
  keyFile = path.join(hosts[0].dir, "wmco.pem");
  // The WMCO key is the first lab host's user key; each lab host trusts only its own key.
  fs.writeFileSync(keyFile, hosts[0].host.privateKey, { mode: 0o600 });
});
afterAll(async () => {
  await kube?.stop();
  for (const h of hosts) {
    await h.host.stop();
    fs.rmSync(h.dir, { recursive: true, force: true });
  }
});

function byoh(h: LabWindows) {
  // A short SSH deadline: the scenario with a host down then fails in seconds rather than the default two minutes.
  return { address: h.host.host, username: h.host.user, hostKey: h.host.hostKeyFingerprint, sshDeadlineSeconds: 8 };
}

function config(over: Record<string, unknown> = {}): StackConfig {
  return stackConfig(
    DEV_FILE,
    {
      cluster: {
        platform: "Azure",
        infrastructureId: "win-tmk9g",
        region: "westus",
        discovery: false,
        kubeconfig: kube.kubeconfig(),
      },
      privateKeyPath: keyFile,
      machineSets: [
        { name: "winwork1", windowsServer: "2022", azure: { vmSize: "Standard_D2s_v3", zone: "" } },
        { name: "winwork2", windowsServer: "2022", azure: { vmSize: "Standard_D2s_v3", zone: "" } },
      ],
      byoh: [],
      ...over,
    },
    {},
  );
}

async function up(c: StackConfig, previous?: StackState, stack = "dev"): Promise<RunResult> {
  const r = await runProgram({ ...c, stack, preview: false, previous });
  if (r.exitCode !== 0)
    throw new Error(
      `up failed (${r.exitCode}): ${r.engine.errors.join("; ")}\n${r.engine.logs
        .filter((l) => l.severity === "error")
        .map((l) => l.message)
        .join("\n")}\n${r.stderr.slice(-2000)}\n${r.pluginStderr.slice(-2000)}`,
    );
  return r;
}

const ops = (steps: Step[], op: Step["op"]) => steps.filter((s) => s.op === op).map((s) => s.urn.split("::").pop());
const changed = (steps: Step[]) =>
  steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn.split("::").pop()}`);
const byName = (s: StackState, name: string) => s.resources.find((r) => r.name === name) as ResourceState;

describe("MachineSets and the key", () => {
  let first: RunResult;
  beforeAll(async () => {
    first = await up(config());
  });

  test("first up creates everything; an identical second up changes nothing", async () => {
    expect(ops(first.engine.steps, "create")).toEqual(
      expect.arrayContaining([
        "estate-ms-winwork1-machineset",
        "estate-ms-winwork2-machineset",
        "estate-key-secret",
        "estate-operator-ready",
        "estate-windows-user-data",
      ]),
    );
    const again = await up(config(), first.state);
    expect(changed(again.engine.steps)).toEqual([]);
  });

  test("rotating the key updates cloud-private-key in place: no replacement, nothing deleted", async () => {
    const other = path.join(hosts[1].dir, "wmco-2.pem");
    fs.writeFileSync(other, hosts[1].host.privateKey, { mode: 0o600 });
    const r = await up(config({ privateKeyPath: other }), first.state);
    expect(changed(r.engine.steps)).toEqual(["update estate-key-secret"]);
    const stored = byName(r.state, "estate-key-secret");
    expect(JSON.stringify(reveal(stored.inputs))).toContain(hosts[1].host.privateKey.trim().split("\n")[1]);
  });

  test("removing the first of two MachineSets deletes only it", async () => {
    const c = config();
    const one = config({ machineSets: [JSON.parse(c.config["windows-estate:machineSets"])[1]] });
    const r = await up(one, first.state);
    expect(changed(r.engine.steps).sort()).toEqual([
      "delete estate-ms-winwork1",
      "delete estate-ms-winwork1-machineset",
    ]);
  });

  test("renaming the stack changes nothing", async () => {
    const r = await up(config(), renameStack(first.state, "prod"), "prod");
    expect(changed(r.engine.steps)).toEqual([]);
  });

  test("a stack from before (names from the stack name and list positions) migrates through aliases, nothing replaced", async () => {
    // The previous release's names, derived from this state: `estate` was the stack name, MachineSets were `ms-<index>`.
    const rename = (u: string) =>
      u
        .replace(/::estate(?=-|$)/, "::dev")
        .replace(/::dev-ms-winwork1/, "::dev-ms-0")
        .replace(/::dev-ms-winwork2/, "::dev-ms-1");
    const old: StackState = {
      stack: "dev",
      resources: first.state.resources.map((r) => ({
        ...r,
        urn: rename(r.urn),
        name: r.type === ROOT_STACK_TYPE ? r.name : rename(`::${r.name}`).slice(2),
        parent: r.parent && rename(r.parent),
        dependencies: r.dependencies.map(rename),
        provider: r.provider,
      })),
    };
    expect(old.resources.map((r) => r.name)).toContain("dev-ms-0-machineset");
    const r = await up(config(), old);
    expect(changed(r.engine.steps)).toEqual([]);
    expect(r.engine.steps.filter((s) => s.aliasedFrom).length).toBeGreaterThan(10);
  });

  test("refresh during an API outage keeps the wait resources' last known state instead of failing", async () => {
    const api = new FakeKube();
    for (const [p, r] of (kube as unknown as { routes: Map<string, (n: number) => { status: number; body?: unknown }> })
      .routes)
      api.route(p, r);
    await api.start();
    const c = config();
    c.config["windows-estate:cluster"] = JSON.stringify({
      ...JSON.parse(c.config["windows-estate:cluster"]),
      kubeconfig: api.kubeconfig(),
    });
    const r = await up(c, first.state);
    await api.stop(); // the API server goes away
    const plugin = new DynamicPlugin();
    await plugin.start("127.0.0.1:1");
    try {
      const refreshed = await refresh(r.state, plugin, {});
      expect(refreshed.steps.filter((s) => s.op !== "same")).toEqual([]);
      expect(plugin.stderr.join("")).toMatch(/refresh kept the last known state: cannot reach the Kubernetes API/);
    } finally {
      await plugin.stop();
    }
  });

  test("a rotated kubeconfig reaches the wait resources' state (in-place update), so the next refresh uses it", async () => {
    const oldToken = kube.token;
    (kube as unknown as { token: string }).token = "rotated-token";
    try {
      const c = config();
      const r = await up(c, first.state);
      expect(changed(r.engine.steps).filter((s) => s.startsWith("replace"))).toEqual([]);
      expect(changed(r.engine.steps)).toEqual(
        expect.arrayContaining(["update estate-operator-ready", "update estate-windows-user-data"]),
      );
      const plugin = new DynamicPlugin();
      await plugin.start("127.0.0.1:1");
      try {
        const refreshed = await refresh(r.state, plugin, {});
        expect(refreshed.steps.filter((s) => s.op === "delete")).toEqual([]);
      } finally {
        await plugin.stop();
      }
    } finally {
      (kube as unknown as { token: string }).token = oldToken;
    }
  });
});

void secret;

describe("bring-your-own hosts", () => {
  let withOne: RunResult;
  beforeAll(async () => {
    // The second lab host must also trust the WMCO key (on Windows, the preparation authorizes it; the simulated
    // PowerShell records that in its state, sshd reads its own authorized_keys).
    const pub = execFileSync("ssh-keygen", ["-y", "-f", keyFile]).toString().trim();
    fs.appendFileSync(path.join(path.dirname(hosts[1].host.root), "authorized_keys"), pub + "\n");
    withOne = await up(config({ machineSets: [], byoh: [byoh(hosts[0])] }));
  });

  /** Ties each lab host's simulated key list to its sshd (so an authorized key really logs in), or unties it and
   * puts back the WMCO key of the other tests. */
  function linkKeys(on: boolean): void {
    const pub = execFileSync("ssh-keygen", ["-y", "-f", keyFile]).toString().trim();
    for (const h of hosts) {
      const st = JSON.parse(fs.readFileSync(h.state, "utf8"));
      if (on) fs.writeFileSync(h.state, JSON.stringify({ ...st, authorizedKeysFile: h.host.authorizedKeysFile }));
      else {
        fs.writeFileSync(h.state, JSON.stringify({ ...st, authorizedKeys: [pub], authorizedKeysFile: undefined }));
        fs.writeFileSync(h.host.authorizedKeysFile, pub + "\n");
      }
    }
  }

  const instances = (s: StackState) =>
    (reveal(byName(s, "estate-byoh-windows-instances").inputs) as { data: Record<string, string> }).data;

  test("first up prepares the host and lists it in windows-instances", () => {
    expect(ops(withOne.engine.steps, "create")).toEqual(
      expect.arrayContaining(["estate-byoh-127.0.0.21", "estate-byoh-windows-instances", "estate-byoh-deconfigured"]),
    );
    expect(Object.keys(instances(withOne.state))).toEqual(["127.0.0.21"]);
  });

  test("adding a host updates windows-instances in place and deletes nothing; removing it again removes only it", async () => {
    const two = await up(config({ machineSets: [], byoh: [byoh(hosts[0]), byoh(hosts[1])] }), withOne.state);
    expect(changed(two.engine.steps).sort()).toEqual([
      "create estate-byoh-127.0.0.22",
      "create estate-byoh-127.0.0.22-retired-keys",
      "update estate-byoh-windows-instances",
    ]);
    expect(Object.keys(instances(two.state)).sort()).toEqual(["127.0.0.21", "127.0.0.22"]);
    const back = await up(config({ machineSets: [], byoh: [byoh(hosts[0])] }), two.state);
    expect(changed(back.engine.steps).sort()).toEqual([
      "delete estate-byoh-127.0.0.22",
      "delete estate-byoh-127.0.0.22-retired-keys",
      "update estate-byoh-windows-instances",
    ]);
  });

  test("rotating the WMCO key: each host authorizes the new key first, then the Secret, then WMCO adopts it, then the old key leaves", async () => {
    // sshd on each lab host reads exactly the keys the simulated PowerShell keeps (prepare writes them).
    linkKeys(true);
    const two = await up(config({ machineSets: [], byoh: [byoh(hosts[0]), byoh(hosts[1])] }), withOne.state);
    const oldKey = fs.readFileSync(keyFile, "utf8");
    const newFile = path.join(hosts[0].dir, "wmco-new.pem");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", newFile]);
    const newKey = fs.readFileSync(newFile, "utf8");
    userDataKey = fs.readFileSync(`${newFile}.pub`, "utf8").trim();
    try {
      const r = await up(
        config({ machineSets: [], byoh: [byoh(hosts[0]), byoh(hosts[1])], privateKeyPath: newFile }),
        two.state,
      );
      const order = changed(r.engine.steps);
      const at = (step: string) => order.indexOf(step);
      for (const host of ["estate-byoh-127.0.0.21", "estate-byoh-127.0.0.22"]) {
        expect(at(`update ${host}`)).toBeGreaterThanOrEqual(0);
        expect(at(`update ${host}`)).toBeLessThan(at("update estate-key-secret"));
        expect(at(`update ${host}-retired-keys`)).toBeGreaterThan(at("update estate-key-adopted"));
      }
      expect(at("update estate-key-secret")).toBeLessThan(at("update estate-key-adopted"));
      expect(order.filter((o) => !o.startsWith("update"))).toEqual([]);
      // Every host: the new key logs in, the old one no longer does.
      for (const h of hosts) {
        const login = (pem: string) =>
          withSession(
            {
              host: h.host.host,
              port: 22,
              user: h.host.user,
              privateKey: pem,
              hostKey: h.host.hostKeyLine,
              pathStyle: "posix",
              deadlineSeconds: 2,
            },
            undefined,
            async () => true,
          ).catch(() => false);
        expect([await login(newKey), await login(oldKey)]).toEqual([true, false]);
      }
    } finally {
      userDataKey = undefined;
      linkKeys(false);
    }
  });

  test("a host that cannot be reached stops the rotation before cloud-private-key changes", async () => {
    const two = await up(config({ machineSets: [], byoh: [byoh(hosts[0]), byoh(hosts[1])] }), withOne.state);
    const newFile = path.join(hosts[0].dir, "wmco-newer.pem");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", newFile]);
    linkKeys(true);
    const down = await labWindowsDown(hosts[1]);
    try {
      const r = await runProgram({
        ...config({ machineSets: [], byoh: [byoh(hosts[0]), byoh(hosts[1])], privateKeyPath: newFile }),
        stack: "dev",
        preview: false,
        previous: two.state,
      });
      expect(r.exitCode).not.toBe(0);
      expect(r.engine.errors.join("\n")).toMatch(/127\.0\.0\.22/);
      expect(changed(r.engine.steps).filter((s) => s.includes("estate-key"))).toEqual([]);
    } finally {
      await down();
      linkKeys(false);
    }
  });

  test("refresh with a host unreachable keeps its last known state and names it; the next up fails naming it", async () => {
    const two = await up(config({ machineSets: [], byoh: [byoh(hosts[0]), byoh(hosts[1])] }), withOne.state);
    const second = await labWindowsDown(hosts[1]);
    try {
      const plugin = new DynamicPlugin();
      await plugin.start("127.0.0.1:1");
      const r = await refresh(two.state, plugin, {}).finally(() => plugin.stop());
      const host2 = byName(r.state, "estate-byoh-127.0.0.22");
      expect(reveal(host2.outputs)).toMatchObject({
        hostname: "win-byoh-2",
        osBuild: "20348",
        unreachable: expect.stringContaining("127.0.0.22"),
      });
      expect(plugin.stderr.join("")).toContain("127.0.0.22");
      expect(
        (reveal(byName(r.state, "estate-byoh-127.0.0.21").outputs) as { unreachable?: string }).unreachable,
      ).toBeUndefined();
      const failed = await runProgram({
        ...config({ machineSets: [], byoh: [byoh(hosts[0]), byoh(hosts[1])] }),
        stack: "dev",
        preview: false,
        previous: r.state,
      });
      expect(failed.exitCode).not.toBe(0);
      expect(failed.engine.errors.join("\n")).toMatch(/127\.0\.0\.22/);
    } finally {
      await second();
    }
  });

  test("destroy deletes windows-instances, then waits for WMCO to remove the BYOH nodes, then the key and the operator", async () => {
    let polls = 0;
    nodes = [{ metadata: { name: "win-byoh-1", labels: { "windowsmachineconfig.openshift.io/byoh": "true" } } }];
    kube.route("/api/v1/nodes", () => {
      polls++;
      // WMCO removes the node after the ConfigMap is gone: here, from the third poll on.
      if (polls >= 3) nodes = [];
      return { status: 200, body: { apiVersion: "v1", kind: "NodeList", metadata: {}, items: nodes } };
    });
    const plugin = new DynamicPlugin();
    await plugin.start("127.0.0.1:1");
    const order = await destroy(withOne.state, plugin, {}).finally(() => plugin.stop());
    const at = (name: string) => order.findIndex((u) => u.endsWith(`::${name}`));
    expect(at("estate-byoh-windows-instances")).toBeLessThan(at("estate-byoh-deconfigured"));
    for (const later of [
      "estate-key-secret",
      "estate-operator-subscription",
      "estate-operator-namespace",
      "estate-operator-ready",
    ])
      expect(at("estate-byoh-deconfigured")).toBeLessThan(at(later));
    expect(polls).toBe(3);
  });
});

/** Stops a lab host's sshd (as a host that went down); returns how to bring a replacement up on the same address. */
/** Takes a lab host off the network; returns how to bring the same host back. */
async function labWindowsDown(h: LabWindows): Promise<() => Promise<void>> {
  await h.host.down();
  return () => h.host.up();
}

describe("AWS: the Windows AMI is pinned", () => {
  const ec2 = new Ec2StandIn();
  const AWS_FILE = path.join(PROJECT_DIR, "stacks", "examples", "Pulumi.aws.yaml");
  const IMAGE_A = {
    imageId: "ami-0aaaaaaaaaaaaaaa1",
    name: "Windows_Server-2022-English-Core-Base-2026.10.15",
    creationDate: "2026-10-15T07:00:00.000Z",
    ownerAlias: "amazon",
  };
  const IMAGE_B = {
    imageId: "ami-0bbbbbbbbbbbbbbb2",
    name: "Windows_Server-2022-English-Core-Base-2026.11.12",
    creationDate: "2026-11-12T07:00:00.000Z",
    ownerAlias: "amazon",
  };
  const OTHER = {
    imageId: "ami-0ccccccccccccccc3",
    name: "Windows_Server-2022-English-Full-Base-2026.11.20",
    creationDate: "2026-11-20T07:00:00.000Z",
    ownerAlias: "amazon",
  };
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const url = await ec2.start();
    // IMDS off: the SDK must never look for credentials beyond this machine.
    env = {
      AWS_ENDPOINT_URL_EC2: url,
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "example-secret",
      AWS_EC2_METADATA_DISABLED: "true",
    };
  });
  afterAll(() => ec2.stop());

  function awsConfig(setsOver?: (sets: Record<string, unknown>[]) => Record<string, unknown>[]) {
    const base = stackConfig(AWS_FILE);
    const sets = JSON.parse(base.config["windows-estate:machineSets"]) as Record<string, unknown>[];
    return stackConfig(AWS_FILE, {
      cluster: { ...JSON.parse(base.config["windows-estate:cluster"]), kubeconfig: kube.kubeconfig() },
      machineSets: setsOver ? setsOver(sets) : sets,
    });
  }
  const amiOf = (s: StackState) =>
    (
      reveal(s.resources.find((r) => r.name.endsWith("us-east-1a-machineset"))?.outputs) as {
        spec: { template: { spec: { providerSpec: { value: { ami: { id: string } } } } } };
      }
    ).spec.template.spec.providerSpec.value.ami.id;

  test("first up pins the newest matching AMI; a newer one later changes nothing; amiRefresh moves the pin in place", async () => {
    ec2.images = [IMAGE_A, OTHER];
    const first = await runProgram({ ...awsConfig(), stack: "aws", preview: false, env });
    expect(first.exitCode).toBe(0);
    expect(amiOf(first.state)).toBe(IMAGE_A.imageId);
    expect(ec2.requests).toHaveLength(1);
    expect(ec2.requests[0].get("Owner.1")).toBe("amazon");

    ec2.images = [IMAGE_A, IMAGE_B, OTHER];
    const second = await runProgram({ ...awsConfig(), stack: "aws", preview: false, env, previous: first.state });
    expect(changed(second.engine.steps)).toEqual([]);
    expect(amiOf(second.state)).toBe(IMAGE_A.imageId);
    expect(ec2.requests).toHaveLength(1);

    const refreshed = await runProgram({
      ...awsConfig((sets) => [{ ...sets[0], aws: { ...(sets[0].aws as object), amiRefresh: "2026-11" } }, sets[1]]),
      stack: "aws",
      preview: false,
      env,
      previous: second.state,
    });
    expect(amiOf(refreshed.state)).toBe(IMAGE_B.imageId);
    expect(changed(refreshed.engine.steps).sort()).toEqual(
      ["update ms-us-east-1a-ami", "update ms-us-east-1a-machineset"]
        .map((n) => n.replace("ms-", `estate-ms-ocp-aws-x7k2p-winworker-`))
        .sort(),
    );
  });

  test("without AWS credentials the first up fails naming the lookup and the two fixes", async () => {
    const r = await runProgram({
      ...awsConfig(),
      stack: "aws-nocreds",
      preview: false,
      env: {
        AWS_ENDPOINT_URL_EC2: env.AWS_ENDPOINT_URL_EC2,
        AWS_EC2_METADATA_DISABLED: "true",
        AWS_ACCESS_KEY_ID: "",
        AWS_SECRET_ACCESS_KEY: "",
        AWS_PROFILE: "windows-estate-test-none",
        AWS_CONFIG_FILE: "/nonexistent",
        AWS_SHARED_CREDENTIALS_FILE: "/nonexistent",
      },
    });
    expect(r.exitCode).not.toBe(0);
    expect(r.engine.errors.join("\n")).toMatch(
      /looking up the Windows AMI in us-east-1 failed: .*machineSets\[i\]\.aws\.ami/s,
    );
  });
});
