/**
 * The real OLM in an OpenShift lab: `opm serve` for each catalog (lab/catalog.ts), a CatalogSource of
 * `sourceType: grpc` pointing at it, and OLM's two operators, `olm` and `catalog`, run as a cluster's
 * openshift-operator-lifecycle-manager Deployments run them (operator-lifecycle-manager deploy/chart/templates
 * 0000_50_olm_07-olm-operator.deployment.yaml, 0000_50_olm_08-catalog-operator.deployment.yaml), out of cluster with
 * the lab's admin kubeconfig.
 *
 * What cannot be moved: both operators serve health and metrics on a fixed port of all interfaces (pkg/lib/server/
 * server.go `getAddress`: `:8080`, or `:8443` with TLS; no flag sets it). `catalog` gets a certificate so that it
 * takes :8443 and `olm` keeps :8080. A second lab's operators find those ports taken: the error is only logged
 * (cmd/olm/main.go, cmd/catalog/start.go run the server in a goroutine that logs its error) and they work on without
 * a health endpoint, so no probe here reads those ports: readiness is read from what the operators write.
 */
import * as path from "path";
import { get, str } from "../lib/json";
import { LabCatalog, writeFbc } from "./catalog";
import { LabClient, createAll } from "./kube";
import { connects, freePort, startDetached, Started, waitFor } from "./processes";

/** The namespace of OLM's operators on OpenShift (the release manifests' `namespace`). */
export const OLM_NAMESPACE = "openshift-operator-lifecycle-manager";
/** The global catalog namespace: CatalogSources here serve every namespace (`catalog --namespace`). */
export const MARKETPLACE_NAMESPACE = "openshift-marketplace";

export interface OlmStartOptions {
  client: LabClient;
  kubeconfig: string;
  runDir: string;
  logs: string;
  bins: { olm: string; catalog: string; opm: string };
  /** A serving certificate and key for `catalog`'s health server (TLS moves it to :8443, off `olm`'s :8080). */
  tls: { cert: string; key: string };
  catalogs: readonly LabCatalog[];
  started: (p: Started) => Started;
  log: (line: string) => void;
}

/** Starts opm for each catalog, the CatalogSources, then `olm` and `catalog`, and waits until both act. */
export async function startOlm(o: OlmStartOptions): Promise<void> {
  const { client } = o;
  // The release manifests' objects the operators expect (0000_50_olm_00-namespace.yaml, 0000_50_olm_03-olmconfig.yaml,
  // 0000_50_olm_13-operatorgroup-default.yaml `olm-operators`); openshift-marketplace is seeded.
  await createAll(client, [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: OLM_NAMESPACE } },
    { apiVersion: "operators.coreos.com/v1", kind: "OLMConfig", metadata: { name: "cluster" } },
    {
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      metadata: { name: "olm-operators", namespace: OLM_NAMESPACE },
      spec: { targetNamespaces: [OLM_NAMESPACE] },
    },
  ]);

  const sources: Record<string, unknown>[] = [];
  for (const catalog of o.catalogs) {
    const dir = path.join(o.runDir, "catalogs", catalog.name);
    writeFbc(dir, catalog);
    const port = await freePort();
    o.log(`starting opm serve for ${catalog.name} on 127.0.0.1:${port}`);
    // operator-registry cmd/opm/serve/serve.go: `--pprof-addr ""` turns the startup profiler off (its default
    // localhost:6060 would clash between catalogs and labs); the termination log and the cache go to the lab's folder.
    const opm = o.started(
      startDetached(
        `opm-${catalog.name}`,
        o.bins.opm,
        [
          "serve",
          dir,
          "--port",
          String(port),
          "--pprof-addr",
          "",
          "--termination-log",
          path.join(o.logs, `opm-${catalog.name}.termination.log`),
          "--cache-dir",
          path.join(o.runDir, "catalogs", `${catalog.name}.cache`),
          // With --cache-dir, opm requires a cache built before (serve.go: integrity enforced by default); it builds it.
          "--cache-enforce-integrity=false",
        ],
        path.join(o.logs, `opm-${catalog.name}.log`),
      ),
    );
    await waitFor(opm, "serving", () => connects(port), 120_000);
    sources.push({
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "CatalogSource",
      metadata: { name: catalog.name, namespace: MARKETPLACE_NAMESPACE },
      spec: {
        sourceType: "grpc",
        // With spec.address OLM dials the registry itself; with spec.image it would make a registry pod and dial
        // <name>.<namespace>.svc, which nothing resolves here (pkg/controller/registry/reconciler/reconciler.go picks `GrpcAddressRegistryReconciler` for an address).
        address: `127.0.0.1:${port}`,
        displayName: catalog.displayName,
        publisher: catalog.publisher,
      },
    });
  }
  await createAll(client, sources);

  const env = { ...process.env, KUBECONFIG: o.kubeconfig };
  o.log(`starting OLM's olm operator (namespace ${OLM_NAMESPACE})`);
  // --writeStatusName "" and --writePackageServerStatusName "": no ClusterOperator status (no CVO here). Watching
  // every namespace: `--watchedNamespaces <one>` panics in v0.41.0.
  const olm = o.started(
    startDetached(
      "olm",
      o.bins.olm,
      ["--namespace", OLM_NAMESPACE, "--writeStatusName", "", "--writePackageServerStatusName", ""],
      path.join(o.logs, "olm.log"),
      env,
    ),
  );
  o.log(`starting OLM's catalog operator (catalogs in ${MARKETPLACE_NAMESPACE})`);
  const catalog = o.started(
    startDetached(
      "catalog",
      o.bins.catalog,
      [
        "--namespace",
        MARKETPLACE_NAMESPACE,
        "--writeStatusName",
        "",
        "--tls-cert",
        o.tls.cert,
        "--tls-key",
        o.tls.key,
        "--kubeconfig",
        o.kubeconfig,
      ],
      path.join(o.logs, "catalog.log"),
      env,
    ),
  );
  // olm: it syncs its own OperatorGroup's status (pkg/controller/operators/olm/operatorgroup.go `syncOperatorGroups`
  // sets status.namespaces and lastUpdated).
  const group = `/apis/operators.coreos.com/v1/namespaces/${OLM_NAMESPACE}/operatorgroups/olm-operators`;
  await waitFor(
    olm,
    "running (OperatorGroup olm-operators synced)",
    async () => {
      const r = await client.request("GET", group);
      return r.status === 200 && Boolean(str(get(r.body, "status", "lastUpdated")));
    },
    180_000,
  );
  // catalog: it connects to each CatalogSource's registry and says so (status.connectionState.lastObservedState).
  for (const s of sources) {
    const name = str(get(s, "metadata", "name")) ?? "";
    await waitFor(
      catalog,
      `connected to CatalogSource ${name}`,
      async () => {
        const r = await client.request(
          "GET",
          `/apis/operators.coreos.com/v1alpha1/namespaces/${MARKETPLACE_NAMESPACE}/catalogsources/${name}`,
        );
        const state = str(get(r.body, "status", "connectionState", "lastObservedState"));
        return r.status === 200 && state === "READY";
      },
      180_000,
    );
  }
}
