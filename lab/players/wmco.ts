/**
 * The Windows Machine Config Operator, played. It "runs" while the operator Deployment that the real OLM installed
 * from a WMCO CSV (lab/catalog.ts) is rolled out and Available, in that Deployment's namespace (OwnNamespace,
 * cmd/operator/main.go `WATCH_NAMESPACE`), as version `<csv version>-<commit>` (version/version.go, build/build.sh),
 * the CSV being the one OLM names as the Deployment's owner (`olm.owner`); it stops when the Deployment goes or is not
 * Available. Its controllers:
 * - the Secret controller (controllers/secret_controller.go `Reconcile`, `reconcileUserDataSecret`, `updateUserData`,
 *   `ensureCAPIUserDataSecret`): `windows-user-data` in openshift-machine-api (and openshift-cluster-api when that
 *   namespace exists) kept equal to what `cloud-private-key` gives; on a key change, BYOH nodes get their username and
 *   `pub-key-hash` re-annotated and Machine nodes get `pub-key-hash` blanked before the Secret is rewritten;
 * - the ConfigMap controller for `windows-instances` (lab/players/wmco-instances.ts);
 * - the Machine controller (lab/players/wmco-machines.ts).
 * Watches and predicates follow each controller's `SetupWithManager` (controllers.go `outdatedWindowsNodePredicate`,
 * windowsmachine_controller.go `mapNodeToMachine`). Not played: the services ConfigMap, CSRs, the node controller's
 * reboots, registry mirrors, the metrics controller, OperatorConditions.
 */
import { get, objects, str, stringMap } from "../../lib/json";
import { isNotFound, JsonObject, Kube, metaOf, Player, resourcePath, say } from "./kube";
import { Informer } from "./informer";
import { Queue, startSynced, stopAll } from "./queue";
import { Recorder } from "./events";
import { Kubelets } from "./kubelet";
import { createHash } from "crypto";
import { WMCO_DEPLOYMENT } from "../catalog";
import {
  BYOH_LABEL,
  CLUSTER_API_NAMESPACE,
  MACHINE_API_NAMESPACE,
  MACHINE_OS_LABEL,
  Operator,
  PLAYER,
  PRIVATE_KEY_DATA,
  PRIVATE_KEY_SECRET,
  PUB_KEY_HASH_ANNOTATION,
  signerFor,
  USER_DATA_SECRET,
  USERNAME_ANNOTATION,
  VERSION_ANNOTATION,
  WmcoContext,
  applyMetadata,
} from "./wmco-config";
import { INSTANCES_CONFIGMAP, reconcileInstances } from "./wmco-instances";
import { isValidWindowsMachine, reconcileMachine } from "./wmco-machines";
import { encryptToJSONString } from "./wmco-keys";
import { userData } from "./wmco-userdata";

const WMCO_CSV = /^(community-)?windows-machine-config-operator\.v(\d+\.\d+\.\d+)/;
/** The labels OLM puts on what it installs for a CSV (operator-lifecycle-manager pkg/lib/ownerutil/util.go). */
const OLM_OWNER = "olm.owner";

/**
 * The 7-character git commit WMCO's build stamps after the version (build/build.sh `add_git_data_to_version`:
 * `<semver>-<sha>`). The lab's builds are not real ones: the commit is derived from the CSV name.
 */
export const buildCommit = (csvName: string) => createHash("sha1").update(csvName).digest("hex").slice(0, 7);

export interface WmcoOptions {
  deconfigureDelayMs: number;
  hosts: Map<string, string>;
}

export class WmcoPlayer implements Player {
  readonly name = PLAYER;
  private informers: Informer[] = [];
  private queues: Queue[] = [];
  private ctx?: WmcoContext;
  private running?: Operator;
  private platformType?: string;

  constructor(
    private readonly kube: Kube,
    private readonly kubelets: Kubelets,
    private readonly opts: WmcoOptions,
  ) {}

  async start(): Promise<void> {
    const kube = this.kube;
    const secretQ = new Queue(PLAYER, "Secret", () => this.reconcileUserData());
    const cmQ = new Queue(PLAYER, "ConfigMap", () => reconcileInstances(this.context()));
    const instancesKey = () => INSTANCES_CONFIGMAP; // one key: one reconcile at a time, whatever the namespace
    const machineQ = new Queue(PLAYER, "Machine", (name) => reconcileMachine(this.context(), name));
    this.queues = [secretQ, cmQ, machineQ];
    // When the operator starts, its informers replay a Create event for each object that exists.
    const replay = (op: Operator) => {
      const key = keySecrets.get(PRIVATE_KEY_SECRET, op.namespace);
      if (key || userDataSecrets.get(USER_DATA_SECRET, MACHINE_API_NAMESPACE)) secretQ.add("user-data");
      const byoh = nodes.list().some((n) => metaOf(n).labels[BYOH_LABEL] === "true");
      if (instanceMaps.get(INSTANCES_CONFIGMAP, op.namespace) || byoh) cmQ.add(instancesKey());
      for (const m of machines.list()) if (isValidWindowsMachine(m)) machineQ.add(metaOf(m).name);
    };
    const inf = (
      path: string,
      sel: { labelSelector?: string; fieldSelector?: string },
      on: (v: string, o: JsonObject, old?: JsonObject) => void,
    ) => new Informer(kube, PLAYER, path, sel, on);
    const inOperatorNs = (o: JsonObject) => metaOf(o).namespace === this.running?.namespace;

    let listed = false;
    const operatorChanged = () => {
      if (!listed) return; // decide once the first list is complete, not on its first item
      const op = this.discover();
      if (op?.namespace === this.running?.namespace && op?.version === this.running?.version) return;
      this.running = op;
      say(
        PLAYER,
        op ? `operator ${op.version} running in ${op.namespace}` : "operator not running (no Available Deployment)",
      );
      if (op) replay(op);
    };
    const deployments = inf(
      resourcePath("apps/v1", "deployments"),
      { fieldSelector: `metadata.name=${WMCO_DEPLOYMENT}` },
      operatorChanged,
    );
    const keySecrets = inf(
      resourcePath("v1", "secrets"),
      { fieldSelector: `metadata.name=${PRIVATE_KEY_SECRET}` },
      (v, o, old) => {
        if (!inOperatorNs(o)) return;
        if (v === "MODIFIED" && get(old, "data", PRIVATE_KEY_DATA) === get(o, "data", PRIVATE_KEY_DATA)) return;
        secretQ.add("user-data");
      },
    );
    const userDataSecrets = inf(
      resourcePath("v1", "secrets"),
      { fieldSelector: `metadata.name=${USER_DATA_SECRET}` },
      (v, o, old) => {
        if (![MACHINE_API_NAMESPACE, CLUSTER_API_NAMESPACE].includes(metaOf(o).namespace)) return;
        if (v === "MODIFIED" && get(old, "data", "userData") === get(o, "data", "userData")) return;
        secretQ.add("user-data");
      },
    );
    const instanceMaps = inf(
      resourcePath("v1", "configmaps"),
      { fieldSelector: `metadata.name=${INSTANCES_CONFIGMAP}` },
      (_v, o) => {
        if (inOperatorNs(o)) cmQ.add(instancesKey());
      },
    );
    const machines = inf(
      resourcePath("machine.openshift.io/v1beta1", "machines", MACHINE_API_NAMESPACE),
      { labelSelector: `${MACHINE_OS_LABEL}=Windows` },
      (v, o) => {
        if (v === "DELETED" || isValidWindowsMachine(o)) machineQ.add(metaOf(o).name);
      },
    );
    const nodes = inf(resourcePath("v1", "nodes"), { labelSelector: "kubernetes.io/os=windows" }, (v, n, old) => {
      const version = this.running?.version;
      const ann = metaOf(n).annotations;
      const outdated =
        v === "DELETED" ||
        ann[VERSION_ANNOTATION] !== version ||
        (v === "MODIFIED" && metaOf(old).annotations[PUB_KEY_HASH_ANNOTATION] !== ann[PUB_KEY_HASH_ANNOTATION]);
      if (!outdated) return;
      if (metaOf(n).labels[BYOH_LABEL] === "true") return cmQ.add(instancesKey());
      const uid = metaOf(n).uid;
      const machine = machines
        .list()
        .find((m) => get(m, "status", "nodeRef", "uid") === uid && isValidWindowsMachine(m));
      if (machine) machineQ.add(metaOf(machine).name);
    });
    this.informers = [deployments, keySecrets, userDataSecrets, instanceMaps, machines, nodes];
    this.ctx = {
      kube,
      recorder: new Recorder(kube, PLAYER),
      kubelets: this.kubelets,
      nodes,
      machines,
      keySecrets,
      userDataSecrets,
      instanceMaps,
      deconfigureDelayMs: this.opts.deconfigureDelayMs,
      hosts: this.opts.hosts,
      operator: () => this.running,
      platform: () => this.platform(),
    };
    await startSynced(this.informers, this.queues);
    listed = true;
    operatorChanged();
  }

  stop(): void {
    stopAll(this.informers, this.queues);
  }

  private context(): WmcoContext {
    if (!this.ctx) throw new Error("wmco player not started");
    return this.ctx;
  }

  /**
   * Where and which version the operator runs: a WMCO operator Deployment that is Available with its rollout done
   * (kubectl's rollout status: observedGeneration caught up, every replica updated), owned by a WMCO CSV. While OLM
   * rolls it to an upgrade's CSV, the operator it runs already keeps running. The namespace the operator already runs
   * in is kept; between others, the first created.
   */
  private discover(): Operator | undefined {
    const cond = (d: JsonObject) =>
      objects(get(d, "status", "conditions")).find((c) => str(c.type) === "Available")?.status === "True";
    const num = (v: unknown) => (typeof v === "number" ? v : 0);
    const rolled = (d: JsonObject) =>
      num(get(d, "status", "observedGeneration")) >= num(get(d, "metadata", "generation")) &&
      num(get(d, "status", "updatedReplicas")) >= num(get(d, "spec", "replicas"));
    const owned = (this.informers[0]?.list() ?? [])
      .filter((d) => WMCO_CSV.test(metaOf(d).labels[OLM_OWNER] ?? ""))
      .filter((d) => cond(d));
    const current = owned.find((d) => metaOf(d).namespace === this.running?.namespace);
    if (current && !rolled(current)) return this.running;
    const created = (d: JsonObject) => str(get(d, "metadata", "creationTimestamp")) ?? "";
    const d = current ?? owned.filter(rolled).sort((a, b) => created(a).localeCompare(created(b)))[0];
    if (!d) return undefined;
    const csv = metaOf(d).labels[OLM_OWNER] ?? "";
    const version = WMCO_CSV.exec(csv)?.[2] ?? "0.0.0";
    return { namespace: metaOf(d).namespace, version: `${version}-${buildCommit(csv)}` };
  }

  /** pkg/cluster/config.go: the platform from `infrastructures.config.openshift.io/cluster` (None without one). */
  private async platform(): Promise<string> {
    if (this.platformType) return this.platformType;
    const infra = await this.kube
      .get(resourcePath("config.openshift.io/v1", "infrastructures", undefined, "cluster"))
      .catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
    this.platformType =
      str(get(infra, "status", "platformStatus", "type")) ?? str(get(infra, "status", "platform")) ?? "None";
    return this.platformType;
  }

  /** secret_controller.go `reconcileUserDataSecret`. */
  private async reconcileUserData(): Promise<void> {
    const w = this.context();
    const op = this.running;
    if (!op) return;
    if (!w.keySecrets.get(PRIVATE_KEY_SECRET, op.namespace)) return; // deleted: nothing to do, no requeue
    const signer = signerFor(w, op, "unable to create signer from private key secret");
    const expected = userData(await this.platform(), signer.authorizedKey);
    const encoded = Buffer.from(expected, "utf8").toString("base64");
    const path = resourcePath("v1", "secrets", MACHINE_API_NAMESPACE, USER_DATA_SECRET);
    const existing = w.userDataSecrets.get(USER_DATA_SECRET, MACHINE_API_NAMESPACE) ?? (await this.kube.get(path));
    if (!existing) {
      await this.kube.create(resourcePath("v1", "secrets", MACHINE_API_NAMESPACE), {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: USER_DATA_SECRET, namespace: MACHINE_API_NAMESPACE },
        data: { userData: encoded },
      });
      say(PLAYER, `created Secret ${MACHINE_API_NAMESPACE}/${USER_DATA_SECRET} for key ${signer.hash.slice(0, 12)}…`);
    } else if (get(existing, "data", "userData") !== encoded) {
      await this.annotateNodesForNewKey(op, signer.hash, signer.pem);
      await this.kube.put(path, { ...existing, data: { userData: encoded } });
      say(PLAYER, `updated Secret ${MACHINE_API_NAMESPACE}/${USER_DATA_SECRET} for key ${signer.hash.slice(0, 12)}…`);
    }
    if (await this.kube.get(resourcePath("v1", "namespaces", undefined, CLUSTER_API_NAMESPACE))) {
      const capi = resourcePath("v1", "secrets", CLUSTER_API_NAMESPACE, USER_DATA_SECRET);
      const copy = await this.kube.get(capi);
      const body = { apiVersion: "v1", kind: "Secret", data: { userData: encoded } };
      if (!copy) {
        await this.kube.create(resourcePath("v1", "secrets", CLUSTER_API_NAMESPACE), {
          ...body,
          metadata: { name: USER_DATA_SECRET, namespace: CLUSTER_API_NAMESPACE },
        });
        say(PLAYER, `created Secret ${CLUSTER_API_NAMESPACE}/${USER_DATA_SECRET}`);
      } else if (get(copy, "data", "userData") !== encoded) {
        await this.kube.put(capi, { ...copy, data: { userData: encoded } });
        say(PLAYER, `updated Secret ${CLUSTER_API_NAMESPACE}/${USER_DATA_SECRET}`);
      }
    }
  }

  /**
   * `updateUserData`: BYOH nodes on another key get the username re-encrypted and the new hash (the username comes
   * from `windows-instances` by exact node address, wiparser.go `GetNodeUsername`); Machine nodes get an empty hash,
   * which makes the Machine controller replace their Machines.
   */
  private async annotateNodesForNewKey(op: Operator, hash: string, pem: Buffer): Promise<void> {
    const w = this.context();
    const cm = w.instanceMaps.get(INSTANCES_CONFIGMAP, op.namespace);
    for (const node of w.nodes.list()) {
      const m = metaOf(node);
      if (BYOH_LABEL in m.labels) {
        if (m.annotations[PUB_KEY_HASH_ANNOTATION] === hash) continue;
        if (!cm)
          throw new Error(
            `unable to retrieve expected username annotation: unable to get instance configmap: configmaps "${INSTANCES_CONFIGMAP}" not found`,
          );
        const data = stringMap(get(cm, "data"));
        const entry = objects(get(node, "status", "addresses"))
          .map((a) => str(a.address) ?? "")
          .find((a) => a in data);
        const value = entry === undefined ? undefined : data[entry];
        const username = value?.startsWith("username=") ? value.slice("username=".length) : undefined;
        if (username === undefined)
          throw new Error(
            `unable to retrieve expected username annotation: unable to find instance associated with node ${m.name}`,
          );
        await applyMetadata(
          w,
          m.name,
          {},
          { [USERNAME_ANNOTATION]: encryptToJSONString(username, pem), [PUB_KEY_HASH_ANNOTATION]: hash },
        );
      } else {
        await applyMetadata(w, m.name, {}, { [PUB_KEY_HASH_ANNOTATION]: "" });
      }
      say(PLAYER, `node ${m.name} annotated for the new private key`);
    }
  }
}
