import { kubernetesMinor, kubernetesSkewIssues, wmcoInEffect } from "../../../components/wmco/release";

// OLM: a Subscription's `startingCSV` picks only the first CSV; with `installPlanApproval: Automatic` the next
// InstallPlan (each bundle `replaces` its predecessor, `olm.skipRange`, e.g. release-4.18's CSV `>=10.17.0 <10.18.3`)
// is approved at once, so the channel head runs. WMCO: pkg/cluster/config.go `validateK8sVersion` accepts
// `baseK8sVersion` (release-4.20 "v1.33") and the minor above, and exits "unsupported server version" otherwise.

const manual = (startingCSV?: string) => ({ installPlanApproval: "Manual" as const, startingCSV, channel: "stable" });
const automatic = (startingCSV?: string) => ({
  installPlanApproval: "Automatic" as const,
  startingCSV,
  channel: "stable",
});

describe("which WMCO the rules follow", () => {
  test("startingCSV pins only with Manual approval", () => {
    expect(wmcoInEffect(manual("windows-machine-config-operator.v10.20.1"))).toEqual({
      version: { major: 10, minor: 20 },
      source: "operator.startingCSV windows-machine-config-operator.v10.20.1 with installPlanApproval: Manual",
      from: "pinned",
    });
    // Automatic: OLM moves past the starting CSV, so the channel head (the newest known, WMCO 11.0 = master) decides.
    const auto = wmcoInEffect(automatic("windows-machine-config-operator.v10.20.1"));
    expect(auto.from).toBe("newest");
    expect(auto.version).toEqual({ major: 11, minor: 0 });
    expect(auto.source).toMatch(/head of channel stable.*installPlanApproval: Manual/);
  });

  test("with Automatic, the cluster's OpenShift version names its catalog's release (4.y ships WMCO 10.y)", () => {
    const w = wmcoInEffect(automatic("windows-machine-config-operator.v10.18.0"), { openShiftVersion: "4.21.2" });
    expect(w).toEqual({ version: { major: 10, minor: 21 }, source: "the cluster version 4.21.2", from: "cluster" });
    // A Manual pin wins over the cluster's version: it is what OLM installs.
    expect(wmcoInEffect(manual("windows-machine-config-operator.v10.18.0"), { openShiftVersion: "4.21.2" }).from).toBe(
      "pinned",
    );
  });

  test("the installed CSV is what runs, whatever the config says", () => {
    const cluster = { installedCSV: "windows-machine-config-operator.v10.22.2", openShiftVersion: "4.22.1" };
    for (const op of [manual("windows-machine-config-operator.v10.21.0"), automatic()])
      expect(wmcoInEffect(op, cluster)).toEqual({
        version: { major: 10, minor: 22 },
        source: "the installed CSV windows-machine-config-operator.v10.22.2",
        from: "installed",
      });
  });
});

describe("the cluster's Kubernetes against the pinned WMCO", () => {
  test("GET /version gitVersion to a 1.x minor", () => {
    expect([kubernetesMinor("v1.36.3"), kubernetesMinor("v1.33.0-rc.1"), kubernetesMinor("v2.0.0")]).toEqual([
      36,
      33,
      undefined,
    ]);
    expect(kubernetesMinor(undefined)).toBeUndefined();
  });

  test("WMCO 10.20 (release-4.20 baseK8sVersion v1.33) on Kubernetes 1.36 is refused, naming the key, both versions and the fix", () => {
    const op = manual("windows-machine-config-operator.v10.20.1");
    const issues = kubernetesSkewIssues(wmcoInEffect(op), op, "v1.36.3");
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("operator.startingCSV");
    expect(issues[0].message).toContain("pins WMCO 10.20 (windows-machine-config-operator.v10.20.1");
    expect(issues[0].message).toContain("runs on Kubernetes 1.33 and 1.34 only");
    expect(issues[0].message).toContain("the cluster runs Kubernetes v1.36.3");
    expect(issues[0].message).toContain("unsupported server version");
    // release-4.22 "v1.35" (1.35-1.36) and master "v1.36" (1.36-1.37) accept 1.36.
    expect(issues[0].message).toContain("pin a CSV of WMCO 10.22 or 11.0");
  });

  test("both ends of the accepted range pass; one past either end is refused", () => {
    const op = manual("windows-machine-config-operator.v10.20.1");
    const w = wmcoInEffect(op);
    expect(kubernetesSkewIssues(w, op, "v1.33.0")).toEqual([]);
    expect(kubernetesSkewIssues(w, op, "v1.34.9")).toEqual([]);
    expect(kubernetesSkewIssues(w, op, "v1.32.5")).toHaveLength(1);
    expect(kubernetesSkewIssues(w, op, "v1.35.0")).toHaveLength(1);
  });

  test("only a Manual pin is checked; an unknown server version or release is not refused", () => {
    const op = automatic("windows-machine-config-operator.v10.20.1");
    expect(kubernetesSkewIssues(wmcoInEffect(op), op, "v1.36.3")).toEqual([]);
    const installed = wmcoInEffect(manual("windows-machine-config-operator.v10.20.1"), {
      installedCSV: "windows-machine-config-operator.v10.20.1",
    });
    expect(kubernetesSkewIssues(installed, op, "v1.36.3")).toEqual([]);
    const pinned = manual("windows-machine-config-operator.v10.20.1");
    expect(kubernetesSkewIssues(wmcoInEffect(pinned), pinned, undefined)).toEqual([]);
    const old = manual("windows-machine-config-operator.v10.15.0");
    expect(kubernetesSkewIssues(wmcoInEffect(old), old, "v1.36.3")).toEqual([]);
  });
});
