/**
 * The cluster network between WMCO's pod and a Windows host, played from the real NetworkPolicy objects of WMCO's
 * namespace (networking.k8s.io/v1, as the cluster's network plugin enforces them; k8s.io/api/networking/v1 types.go):
 * when no policy with `Egress` in `policyTypes` selects the operator's pod, all egress is allowed; otherwise a
 * destination is allowed when some egress rule of a selecting policy admits it (`to` empty or an `ipBlock` whose `cidr`
 * holds the address and no `except` does; `ports` empty or naming the port over TCP). The pod carries the labels of
 * WMCO's Deployment template (bundle/manifests/windows-machine-config-operator.clusterserviceversion.yaml,
 * `name: windows-machine-config-operator`). Only ipBlock peers are
 * played (a host outside the cluster is not a pod): a rule that names only pod or namespace selectors admits nothing.
 * This is how a test makes a host that the program reaches over SSH unreachable from WMCO, as a firewall between the
 * cluster and the hosts does in life.
 */
import * as net from "net";
import { get, objects, str, stringMap, strings } from "../../lib/json";
import type { Kube } from "./kube";

/** The labels on WMCO's pod (its Deployment's template in the CSV). */
export const OPERATOR_POD_LABELS: Readonly<Record<string, string>> = { name: "windows-machine-config-operator" };

function selects(policy: unknown, labels: Readonly<Record<string, string>>): boolean {
  const selector = get(policy, "spec", "podSelector");
  const match = stringMap(get(selector, "matchLabels"));
  const exprs = objects(get(selector, "matchExpressions"));
  const byLabels = Object.entries(match).every(([k, v]) => labels[k] === v);
  const byExprs = exprs.every((e) => {
    const key = str(e.key) ?? "";
    const values = strings(e.values);
    switch (str(e.operator)) {
      case "In":
        return values.includes(labels[key]);
      case "NotIn":
        return !values.includes(labels[key]);
      case "Exists":
        return key in labels;
      case "DoesNotExist":
        return !(key in labels);
      default:
        return false;
    }
  });
  return byLabels && byExprs;
}

function inCidr(ipv4: string, cidr: string): boolean {
  const [base, bits] = cidr.split("/");
  if (!net.isIPv4(base) || !net.isIPv4(ipv4)) return false;
  const n = Number(bits ?? 32);
  const toInt = (a: string) => a.split(".").reduce((acc, o) => (acc << 8) + Number(o), 0) >>> 0;
  const mask = n === 0 ? 0 : (~0 << (32 - n)) >>> 0;
  return (toInt(ipv4) & mask) === (toInt(base) & mask);
}

function admits(rule: unknown, ipv4: string, port: number): boolean {
  const ports = objects(get(rule, "ports"));
  const portOk =
    ports.length === 0 ||
    ports.some((p) => (str(p.protocol) ?? "TCP") === "TCP" && (p.port === undefined || Number(p.port) === port));
  if (!portOk) return false;
  const to = objects(get(rule, "to"));
  if (to.length === 0) return true;
  return to.some((peer) => {
    const block = get(peer, "ipBlock");
    const cidr = str(get(block, "cidr"));
    if (!cidr) return false;
    const except = strings(get(block, "except"));
    return inCidr(ipv4, cidr) && !except.some((e) => inCidr(ipv4, e));
  });
}

/** Whether the egress policies of `namespace` let WMCO's pod open `ipv4:port`. */
export function egressAllowed(policies: unknown[], ipv4: string, port: number): boolean {
  const egress = policies.filter(
    (p) => selects(p, OPERATOR_POD_LABELS) && strings(get(p, "spec", "policyTypes")).includes("Egress"),
  );
  if (egress.length === 0) return true;
  return egress.some((p) => objects(get(p, "spec", "egress")).some((r) => admits(r, ipv4, port)));
}

/** Reads the namespace's NetworkPolicies and answers `egressAllowed`. */
export async function operatorMayReach(kube: Kube, namespace: string, ipv4: string, port = 22): Promise<boolean> {
  const list = await kube.get(`/apis/networking.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/networkpolicies`);
  return egressAllowed(objects(get(list, "items")), ipv4, port);
}
