import { buildNamespace, buildOperatorGroup, buildSubscription } from "../../../components/operator/builders";
import { operatorSchema } from "../../../stacks/schema/operator";
import { validateObject } from "../../helpers/schemas";

const defaults = operatorSchema.parse({});

describe("operator config defaults", () => {
  test("Red Hat build: stable, Automatic, redhat-operators in openshift-marketplace", () => {
    expect(defaults).toMatchObject({
      namespace: "openshift-windows-machine-config-operator",
      package: "windows-machine-config-operator",
      channel: "stable",
      installPlanApproval: "Automatic",
      source: "redhat-operators",
      sourceNamespace: "openshift-marketplace",
    });
  });

  test("community switch changes package, channel and catalog; explicit values still win", () => {
    expect(operatorSchema.parse({ community: true })).toMatchObject({
      package: "community-windows-machine-config-operator",
      channel: "preview",
      source: "community-operators",
    });
    expect(operatorSchema.parse({ community: true, channel: "beta", source: "my-catalog" })).toMatchObject({
      package: "community-windows-machine-config-operator",
      channel: "beta",
      source: "my-catalog",
    });
  });
});

describe("OLM objects", () => {
  const pinned = operatorSchema.parse({
    installPlanApproval: "Manual",
    startingCSV: "windows-machine-config-operator.v10.19.3",
    env: { SERVICES_LOG_FILE_SIZE: "100M", ARGS: "--debugLogging" },
  });

  test("namespace carries the cluster-monitoring label", () => {
    expect(buildNamespace(defaults).metadata.labels?.["openshift.io/cluster-monitoring"]).toBe("true");
  });

  test("OperatorGroup targets only its own namespace (WMCO supports OwnNamespace only)", () => {
    const og = buildOperatorGroup(defaults);
    expect(og.spec.targetNamespaces).toEqual([og.metadata.namespace]);
  });

  test("Subscription pins the CSV, approval and env (sorted, as OLM's list)", () => {
    const sub = buildSubscription(pinned);
    expect(sub.spec).toMatchObject({
      installPlanApproval: "Manual",
      startingCSV: "windows-machine-config-operator.v10.19.3",
    });
    expect(sub.spec.config?.env).toEqual([
      { name: "ARGS", value: "--debugLogging" },
      { name: "SERVICES_LOG_FILE_SIZE", value: "100M" },
    ]);
    expect(buildSubscription(defaults).spec).not.toHaveProperty("config");
    expect(buildSubscription(defaults).spec).not.toHaveProperty("startingCSV");
  });

  test.each([
    ["defaults", defaults],
    ["pinned", pinned],
    ["community", operatorSchema.parse({ community: true, namespace: "wmco" })],
  ])("every object is valid against its schema, closed to unknown fields (%s)", (_n, op) => {
    for (const obj of [buildNamespace(op), buildOperatorGroup(op), buildSubscription(op)]) {
      expect(validateObject(obj, { closed: true })).toBe("");
    }
  });

  test("the closed schema check can fail: a misspelt field is caught", () => {
    const sub = buildSubscription(defaults) as unknown as { spec: Record<string, unknown> };
    sub.spec.installPlanAproval = "Manual";
    expect(validateObject(sub as unknown as { apiVersion: string; kind: string }, { closed: true })).toMatch(
      /additional/,
    );
  });
});
