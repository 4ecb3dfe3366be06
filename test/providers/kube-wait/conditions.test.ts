import { byohHostReleasedVerdict, objectPath, objectVerdict, pluralOf } from "../../../providers/kube-wait/conditions";
import { pollUntil } from "../../../providers/kube-wait/poll";
import { finalError as fatal } from "../../../lib/errors";

describe("objectVerdict", () => {
  const target = {
    apiVersion: "v1",
    kind: "Secret",
    namespace: "openshift-machine-api",
    name: "windows-user-data",
    dataKey: "userData",
  };
  test("absent, present without the key, present with it", () => {
    expect(objectVerdict(target, undefined).state).toBe("waiting");
    expect(objectVerdict(target, { metadata: {}, data: {} })).toMatchObject({
      state: "waiting",
      reason: expect.stringMatching(/no 'userData'/),
    });
    expect(
      objectVerdict(target, { metadata: { resourceVersion: "5", uid: "u" }, data: { userData: "c2VjcmV0" } }),
    ).toEqual({ state: "done", outputs: { resourceVersion: "5", uid: "u" } });
  });
});

test("API paths and plurals", () => {
  expect(objectPath("v1", pluralOf("Secret"), "ns", "n")).toBe("/api/v1/namespaces/ns/secrets/n");
  expect(objectPath("operators.coreos.com/v1alpha1", pluralOf("Subscription"), "ns", "n")).toBe(
    "/apis/operators.coreos.com/v1alpha1/namespaces/ns/subscriptions/n",
  );
  expect(pluralOf("ClusterServiceVersion")).toBe("clusterserviceversions");
  expect(pluralOf("MachineSet")).toBe("machinesets");
});

describe("pollUntil", () => {
  test("keeps asking through transient errors until done", async () => {
    let n = 0;
    const out = await pollUntil(
      async () => {
        n++;
        if (n === 1) throw new Error("ECONNREFUSED");
        return n < 4 ? { state: "waiting" as const, reason: "not yet" } : { state: "done" as const, outputs: n };
      },
      { timeoutSeconds: 10, intervalSeconds: 0.01, what: "x", hint: "" },
    );
    expect(out).toBe(4);
  });

  test("a done verdict's notice is told once, like a progress line", async () => {
    const told: string[] = [];
    const out = await pollUntil(
      async () => ({ state: "done" as const, outputs: 1, notice: "an upgrade awaits approval" }),
      {
        timeoutSeconds: 10,
        intervalSeconds: 0.01,
        what: "x",
        hint: "",
        progress: (l) => told.push(l),
      },
    );
    expect(out).toBe(1);
    expect(told).toEqual(["an upgrade awaits approval"]);
  });

  test("a fatal error ends at once", async () => {
    let n = 0;
    await expect(
      pollUntil(
        async () => {
          n++;
          throw fatal("refused (403)");
        },
        { timeoutSeconds: 10, intervalSeconds: 0.01, what: "x", hint: "" },
      ),
    ).rejects.toThrow("refused (403)");
    expect(n).toBe(1);
  });
});

test("a created BYOH host's VM waits until no BYOH Node carries its address (WMCO deconfigured it)", () => {
  const node = (name: string, address: string) => ({
    metadata: { name, labels: { "windowsmachineconfig.openshift.io/byoh": "true" } },
    status: { addresses: [{ type: "InternalIP", address }] },
  });
  expect(
    byohHostReleasedVerdict({ items: [node("winbyoh-1", "10.0.1.5"), node("b", "10.0.1.6")] }, "10.0.1.5"),
  ).toEqual({
    state: "waiting",
    reason: "WMCO has not yet deconfigured node winbyoh-1 at 10.0.1.5",
  });
  expect(byohHostReleasedVerdict({ items: [node("b", "10.0.1.6")] }, "10.0.1.5")).toEqual({
    state: "done",
    outputs: {},
  });
  expect(byohHostReleasedVerdict(undefined, "10.0.1.5")).toEqual({ state: "done", outputs: {} });
});
