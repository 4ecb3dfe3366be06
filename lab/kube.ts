import * as fs from "fs";
import { LabError } from "./errors";
import { answerError, KubeClient, kubeClient } from "../lib/kube-api";
import { messageOf } from "../lib/errors";
import { get, objects, str } from "../lib/json";

/** The lab set-up's client: the one client (lib/kube-api.ts), as the admin, on one kept-alive connection. */
export type LabClient = KubeClient;

export function labClient(server: string, pki: { caCert: string; adminCert: string; adminKey: string }): LabClient {
  const client = kubeClient({
    server,
    tls: { ca: fs.readFileSync(pki.caCert), cert: fs.readFileSync(pki.adminCert), key: fs.readFileSync(pki.adminKey) },
    keepAlive: true,
  });
  return {
    server: client.server,
    // A timeout or a refused connection is the lab's kind of failure: one line, no stack (lab/errors.ts).
    request: (...call) =>
      client.request(...call).catch((e: unknown) => {
        throw new LabError(messageOf(e));
      }),
  };
}

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; status?: unknown };

/** The REST path of an object (its collection, or itself with `named`), from apiVersion and kind. */
export function restPath(o: Obj, named = false): string {
  const group = o.apiVersion.includes("/") ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const k = o.kind.toLowerCase();
  const plural = k.endsWith("y") ? `${k.slice(0, -1)}ies` : k.endsWith("s") ? `${k}es` : `${k}s`;
  const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : "";
  return `${group}${ns}/${plural}${named ? `/${o.metadata.name}` : ""}`;
}

const describe = (o: Obj) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;

/**
 * Creates each object, then writes its status through the status subresource (a create ignores status for every
 * kind that has one). An object that exists already is an error: the lab's cluster is new.
 */
export async function createAll(client: LabClient, objects: readonly Record<string, unknown>[]): Promise<void> {
  for (const raw of objects) {
    const o = raw as unknown as Obj;
    const created = await client.request("POST", restPath(o), o);
    if (created.status >= 300)
      throw new LabError(`creating ${describe(o)} failed: ${answerError("POST", restPath(o), created)}`);
    if (o.status !== undefined && !["Namespace", "Service"].includes(o.kind)) {
      const current = created.body as Record<string, unknown>;
      const withStatus = { ...current, status: o.status };
      const status = `${restPath(o, true)}/status`;
      const r = await client.request("PUT", status, withStatus);
      // A CRD without the status subresource (config.openshift.io Network) kept the status given at create.
      if (r.status === 404 && current.status !== undefined) continue;
      if (r.status >= 300)
        throw new LabError(`setting the status of ${describe(o)} failed: ${answerError("PUT", status, r)}`);
    }
  }
}

/** Waits until every CRD reports Established (the API server serves its resource), polling each 200 ms. */
export async function waitEstablished(client: LabClient, names: readonly string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const r = await client.request("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      const conds = objects(get(r.body, "status", "conditions"));
      if (conds.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline) throw new LabError(`CRD ${name} was not established within ${timeoutMs / 1000}s`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }
}

/**
 * Waits until each CRD's resource answers a list with 200: an established CRD's storage can still answer 429
 * "storage is (re)initializing" for a moment, and a lab is ready only when a client gets answers.
 */
export async function waitServed(
  client: LabClient,
  crds: readonly Record<string, unknown>[],
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    const versions = objects(get(crd, "spec", "versions"));
    const version = str((versions.find((v) => v.served === true) ?? versions[0])?.name);
    const list = `/apis/${str(get(crd, "spec", "group"))}/${version}/${str(get(crd, "spec", "names", "plural"))}?limit=1`;
    for (;;) {
      if ((await client.request("GET", list)).status === 200) break;
      if (Date.now() > deadline) throw new LabError(`GET ${list} was not answered within ${timeoutMs / 1000}s`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }
}
