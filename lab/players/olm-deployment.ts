/**
 * OLM's install strategy for a CSV's Deployments (operator-lifecycle-manager pkg/controller/install/deployment.go,
 * status_viewer.go). Their status is real: kube-controller-manager's deployment and replicaset controllers roll them
 * out, the real scheduler places the operator's pod on a control-plane node, and the played Linux kubelet reports it
 * running (lab/players/linux-kubelet.ts; what the operator does is lab/players/wmco*.ts).
 */
import { createHash } from "crypto";
import { get, obj, objects, str } from "../../lib/json";
import { canonical, JsonObject, metaOf, resourcePath, say } from "./kube";
import { OLM_V1A1, OlmState } from "./olm-state";

const PLAYER = "olm";

/** The Subscription in the CSV's namespace that installs it (for `spec.config`). */
function subscriptionFor(s: OlmState, namespace: string, csvName: string): JsonObject | undefined {
  return s.subs
    .list(namespace)
    .find((sub) => [get(sub, "status", "currentCSV"), get(sub, "status", "installedCSV")].includes(csvName));
}

/** A short hash like the ones Kubernetes puts in generated names (controller_utils.go `ComputeHash`). */
export function shortHash(v: unknown, n = 10): string {
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  return [...createHash("sha256").update(canonical(v)).digest()]
    .slice(0, n)
    .map((b) => alphabet[b % alphabet.length])
    .join("");
}

/**
 * The install strategy's Deployments (install/deployment.go `deploymentForSpec`): each Deployment of the CSV with the
 * CSV's annotations on its pod template, `olm.managed`, the `olm.owner*` labels, a non-blocking owner reference to
 * the CSV, the Subscription's `spec.config.env` and `OPERATOR_CONDITION_NAME` injected, one kept revision, and
 * `olm.deployment-spec-hash` (a hash of the spec; not byte-identical to OLM's `DeepHashObject`).
 */
export function desiredDeployments(s: OlmState, csv: JsonObject): JsonObject[] {
  const m = metaOf(csv);
  const sub = subscriptionFor(s, m.namespace, m.name);
  const extraEnv = objects(get(sub, "spec", "config", "env"));
  const componentLabels = Object.fromEntries(
    Object.entries(m.labels).filter(([k]) => k.startsWith("operators.coreos.com/")),
  );
  return objects(get(csv, "spec", "install", "spec", "deployments")).map((d) => {
    const spec = structuredClone(obj(d.spec) ?? {});
    const template = obj(spec.template) ?? {};
    const tmeta = obj(template.metadata) ?? {};
    tmeta.annotations = { ...(obj(tmeta.annotations) ?? {}), ...m.annotations };
    template.metadata = tmeta;
    const podSpec = obj(template.spec) ?? {};
    podSpec.containers = objects(podSpec.containers).map((c) => {
      const env = objects(c.env).filter(
        (e) => e.name !== "OPERATOR_CONDITION_NAME" && !extraEnv.some((x) => x.name === e.name),
      );
      return { ...c, env: [...env, ...extraEnv, { name: "OPERATOR_CONDITION_NAME", value: m.name }] };
    });
    spec.revisionHistoryLimit = 1;
    return {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: str(d.name) ?? "",
        namespace: m.namespace,
        labels: {
          ...(obj(d.label) ?? {}),
          ...componentLabels,
          "olm.managed": "true",
          "olm.owner": m.name,
          "olm.owner.namespace": m.namespace,
          "olm.owner.kind": "ClusterServiceVersion",
          "olm.deployment-spec-hash": shortHash(spec, 16),
        },
        ownerReferences: [
          {
            apiVersion: OLM_V1A1,
            kind: "ClusterServiceVersion",
            name: m.name,
            uid: m.uid,
            blockOwnerDeletion: false,
            controller: false,
          },
        ],
      },
      spec,
    };
  });
}

const specHash = (d: JsonObject | undefined) => metaOf(d).labels["olm.deployment-spec-hash"];

/** install/deployment.go `installDeployments`: creates or updates each Deployment that differs. */
export async function installDeployments(s: OlmState, csv: JsonObject): Promise<void> {
  const m = metaOf(csv);
  for (const body of desiredDeployments(s, csv)) {
    const name = metaOf(body).name;
    const path = resourcePath("apps/v1", "deployments", m.namespace, name);
    const existing = await s.kube.get(path);
    if (!existing) {
      await s.kube.create(resourcePath("apps/v1", "deployments", m.namespace), body);
      say(PLAYER, `created Deployment ${m.namespace}/${name} for CSV ${m.name}`);
    } else if (specHash(existing) !== specHash(body) || metaOf(existing).labels["olm.owner"] !== m.name) {
      const meta = { ...(obj(body.metadata) ?? {}), resourceVersion: metaOf(existing).resourceVersion };
      await s.kube.put(path, { ...body, metadata: meta });
      say(PLAYER, `updated Deployment ${m.namespace}/${name} for CSV ${m.name}`);
    }
  }
}

/**
 * install/deployment.go `checkForDeployments` (`StrategyErrDeploymentUpdated`): a Deployment whose spec hash is not
 * what the CSV and Subscription now ask for, as OLM words it.
 */
export function changedDeployment(s: OlmState, csv: JsonObject): string | undefined {
  for (const body of desiredDeployments(s, csv)) {
    const have = s.deps.get(metaOf(body).name, metaOf(csv).namespace);
    if (have && specHash(have) !== specHash(body))
      return `deployment changed old hash=${specHash(have) ?? ""}, new hash=${specHash(body) ?? ""}`;
  }
  return undefined;
}

/** install/status_viewer.go `DeploymentStatus`: a message, and whether the Deployment is rolled out and available. */
export function deploymentStatus(dep: JsonObject | undefined, name: string): { message: string; done: boolean } {
  if (!dep) return { message: `deployment ${name} not found`, done: false };
  const m = metaOf(dep);
  const st = obj(dep.status) ?? {};
  if (m.generation > (typeof st.observedGeneration === "number" ? st.observedGeneration : 0))
    return { message: `waiting for spec update of deployment "${name}" to be observed...`, done: false };
  const available = objects(st.conditions).find((c) => c.type === "Available");
  if (!available || available.status !== "True")
    return {
      message: `deployment "${name}" not available: ${str(available?.message) ?? 'missing condition "Available"'}`,
      done: false,
    };
  return { message: `deployment "${name}" is up-to-date and available`, done: true };
}
