import { hostedRunnerIssues } from "../../../components/provisioning/runner-reach";
import { ConfigErrors } from "../../../stacks/load";
import { loadScratchStack, scratch } from "../../helpers/stack";

// A stack that creates its VMs prepares them over SSH from where `pulumi up` runs. GitHub sets RUNNER_ENVIRONMENT to
// `github-hosted` or `self-hosted` on every job (GitHub docs, "Variables reference"); a hosted runner cannot reach the
// VMs' private addresses, so `nodeAccess.via: direct` there is refused at preview, naming the key and the choices.

const AWS_VM = {
  name: "winbyoh",
  aws: { subnetId: "subnet-0a1b2c3d", securityGroupIds: ["sg-0123abcd"], instanceType: "m5a.large", volumeSize: 120 },
};
const hosted = { RUNNER_ENVIRONMENT: "github-hosted" };

describe("hostedRunnerIssues", () => {
  const byoh = [{ address: "10.0.0.5" }, AWS_VM] as never;

  test("a hosted runner with a created VM and via direct: an error at nodeAccess.via naming the VM and every choice", () => {
    const issues = hostedRunnerIssues({ byoh }, hosted);
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("nodeAccess.via");
    expect(issues[0].message).toContain("byoh[1].aws");
    expect(issues[0].message).toMatch(/`cluster`.*`jumpHost`.*self-hosted runner/);
  });

  test("vanilla nodes created on Azure count too, and via is direct when nodeAccess is left out", () => {
    const nodes = [{ name: "win", azure: { subscriptionId: "x" } }] as never;
    expect(hostedRunnerIssues({ nodes }, hosted)[0]?.message).toContain("nodes[0].azure");
  });

  test("render mode: the relay is not offered (it needs a cluster), a jump host and a self-hosted runner are", () => {
    const [issue] = hostedRunnerIssues({ byoh, cluster: { render: "rendered/x" } as never }, hosted);
    expect(issue.message).not.toContain("`cluster`");
    expect(issue.message).toMatch(/`jumpHost`.*self-hosted runner/);
  });

  test.each([
    ["a self-hosted runner", { byoh }, { RUNNER_ENVIRONMENT: "self-hosted" }],
    ["outside GitHub", { byoh }, {}],
    ["via cluster", { byoh, nodeAccess: { via: "cluster" } as never }, hosted],
    ["via jumpHost", { byoh, nodeAccess: { via: "jumpHost" } as never }, hosted],
    ["hosts given by address only", { byoh: [{ address: "10.0.0.5" }] as never }, hosted],
  ])("no issue on %s", (_name, cfg, env) => {
    expect(hostedRunnerIssues(cfg, env)).toEqual([]);
  });
});

describe("wired into the loader's checks (components/validators.ts)", () => {
  const s = scratch();
  const before = process.env.RUNNER_ENVIRONMENT;
  afterEach(() => {
    if (before === undefined) delete process.env.RUNNER_ENVIRONMENT;
    else process.env.RUNNER_ENVIRONMENT = before;
  });
  afterAll(() => s.cleanup());
  const load = (offline: boolean) => () =>
    loadScratchStack(
      s,
      { cluster: { platform: "AWS", infrastructureId: "ocp-aws-9kq2z", region: "us-east-2" }, byoh: [AWS_VM] },
      { offline },
    );

  test("pulumi preview on a GitHub-hosted runner refuses the stack, naming windows-estate:nodeAccess.via", () => {
    process.env.RUNNER_ENVIRONMENT = "github-hosted";
    expect(load(false)).toThrow(ConfigErrors);
    expect(load(false)).toThrow(/windows-estate:nodeAccess\.via: is direct, but this GitHub-hosted runner/);
  });

  test("synth (offline) on the same runner renders: it reaches nothing", () => {
    process.env.RUNNER_ENVIRONMENT = "github-hosted";
    expect(load(true)).not.toThrow();
  });

  test("the same stack off GitHub loads", () => {
    delete process.env.RUNNER_ENVIRONMENT;
    expect(load(false)).not.toThrow();
  });
});
