import * as pulumi from "@pulumi/pulumi";
import { providerArgs } from "../../components/cluster-access";
import { DOMAIN_VALIDATORS } from "../../components/validators";
import { ConfigErrors, loadEstateConfig } from "../../stacks/load";
import { scratch } from "../helpers/stack";

// The Kubernetes provider's arguments in render mode. pulumi-kubernetes provider/pkg/provider/provider.go
// `CheckConfig` refuses a non-empty `kubeconfig` or `context` beside `renderYamlToDirectory`, and @pulumi/kubernetes
// provider.ts fills an undefined kubeconfig from the environment's KUBECONFIG: render mode must pass it empty.
// (Found through the real CLI: test/e2e/plan.e2e.ts, render mode with the lab's KUBECONFIG set.)

test("render mode: the kubeconfig is explicitly empty (so KUBECONFIG is not picked up) and no context goes along", () => {
  const a = providerArgs({ clusterIdentifier: "c", render: "rendered/x" });
  expect(a.kubeconfig).toBe("");
  expect(a.context).toBeUndefined();
  expect(a.renderYamlToDirectory).toBe("rendered/x");
});

test("against a cluster: the kubeconfig given travels as a secret, none given lets the provider load KUBECONFIG", () => {
  const given = providerArgs({ clusterIdentifier: "c", kubeconfig: "apiVersion: v1", context: "admin" });
  expect(pulumi.Output.isInstance(given.kubeconfig)).toBe(true);
  expect(given.context).toBe("admin");
  expect(given.renderYamlToDirectory).toBeUndefined();
  expect(providerArgs({ clusterIdentifier: "c" }).kubeconfig).toBeUndefined();
});

describe("render mode with a kubeconfig or context in the stack config", () => {
  const s = scratch();
  afterAll(() => s.cleanup());
  const load = (cluster: Record<string, unknown>) => () =>
    loadEstateConfig(
      {
        values: {
          "windows-estate:cluster": JSON.stringify({ platform: "Azure", infrastructureId: "win-tmk9g", ...cluster }),
          "windows-estate:privateKeyPath": s.keyPath,
        },
        secretKeys: new Set(),
      },
      { projectDir: s.dir, offline: true, validators: DOMAIN_VALIDATORS },
    );

  test("is refused naming each key and the fix", () => {
    expect(load({ render: "out", kubeconfig: "/k", context: "admin" })).toThrow(ConfigErrors);
    expect(load({ render: "out", kubeconfig: "/k", context: "admin" })).toThrow(
      /windows-estate:cluster\.kubeconfig: cannot be set with cluster\.render .*remove one of them[\s\S]*windows-estate:cluster\.context: cannot be set with cluster\.render/,
    );
  });

  test("either alone is accepted", () => {
    expect(load({ render: "out" })).not.toThrow();
    expect(load({ kubeconfig: "/k", context: "admin" })).not.toThrow();
  });
});
