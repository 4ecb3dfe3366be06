import * as pulumi from "@pulumi/pulumi";
import { EstateConfig } from "../stacks/load";
import { clusterAccess } from "./cluster-access";
import { ObjectExists, WindowsNodesJoined } from "../providers/kube-wait/resources";
import { isOffline } from "../stacks/offline";
import { ByohHosts } from "./byoh/byoh-hosts";
import { expandByoh } from "./byoh/hosts";
import { cloudHostOf, declareCloudHosts } from "./provisioning/cloud-hosts";
import { WmcoPrivateKey } from "./key/private-key";
import { MACHINE_API_NAMESPACE, USER_DATA_SECRET, WINDOWS_SERVER } from "../facts/wmco";
import { WindowsRegistryMirrors } from "./mirrors/registry-mirrors";
import { WindowsMachineSet } from "./machinesets/machineset";
import { machineSetName } from "./machinesets/names";
import { WmcoOperator } from "./operator/operator";
import { WindowsRuntimeClasses } from "./scheduling/runtime-classes";
import { NodeRelay } from "./node-access/relay";
import { nodePath } from "./node-access/path";
import { relayReplicas } from "./node-access/placement";
import { RollingReboot } from "../providers/rolling-reboot";
import { describeRollout, planRollout, resolveMaxUnavailable } from "../providers/day2/batches";
import { outsideWindow } from "../providers/day2/maintenance-window";
import { tokenDigest } from "../providers/day2/batches";
import { RELAY_IMAGE } from "../facts/day2";
import { RetiredWmcoKeys, WmcoKeyAdopted } from "../providers/key-rotation";
import { InventoryEntry, stackInventory } from "./day2/inventory";
import { PatchRollout, PatchSummary } from "./day2/patch-rollout";
import { drainInputs } from "../providers/day2/drain";

/** What the estate is, once declared: the component's outputs (components/estate.ts). */
export interface EstateParts {
  operatorNamespace: pulumi.Output<string>;
  installedCSV: pulumi.Output<string | undefined>;
  publicKey: pulumi.Output<string | undefined>;
  publicKeyFingerprint: pulumi.Output<string | undefined>;
  machineSets: pulumi.Output<MachineSetSummary[]>;
  runtimeClasses: pulumi.Output<string[]>;
  windowsRegistryConfig: Record<string, string>;
  windowsNodeFiles: Record<string, string>;
  windowsRegistrySources: { scope: string; byRegistry: Record<string, string[]> };
  reboot?: { token: string; plan: string; batches: pulumi.Output<string[][]> };
  inventory: InventoryEntry[];
  patching?: PatchSummary;
  hostStatus?: pulumi.Output<Record<string, unknown>>;
  createdHostsFirstBoot?: pulumi.Output<Record<string, string>>;
  byohHosts: pulumi.Output<ByohHostSummary[]>;
}

/** One MachineSet as the estate reports it. */
export interface MachineSetSummary {
  /** The MachineSet's name in `openshift-machine-api`. */
  name: string;
  /** The cluster's platform (`AWS`, `Azure`, …). */
  platform: string;
  /** The Windows Server version its Machines boot (`2022`). */
  windowsServer: string;
  /** That version's build number (`20348`). */
  windowsBuild: string;
  /** The replicas declared (a surge rollout under way keeps the live count). */
  replicas: number;
  /** With `rollout`: the Machines on an older image that this update replaces. */
  replacing?: string[];
}

/** A bring-your-own host as prepared. */
export interface ByohHostSummary {
  /** The address WMCO reaches it at (`windows-instances`). */
  address: string;
  /** The host name the host reports. */
  hostname: string;
  /** Its Windows Server version. */
  windowsServer: string;
  /** The SHA256 fingerprint of its SSH host key, as verified. */
  hostKeyFingerprint: string;
}

/**
 * Declares the whole Windows estate of one cluster under `parent`, wired in the order WMCO needs:
 * operator (running) → `cloud-private-key` → (WMCO writes `windows-user-data`) → MachineSets, BYOH hosts,
 * mirrors and RuntimeClasses. `child` is every direct child's options (its parent; the Kubernetes provider reaches
 * the objects through the component's transformation: components/estate-resource.ts).
 */
export function declareEstate(
  parent: pulumi.ComponentResource,
  name: string,
  cfg: EstateConfig,
  child: pulumi.ComponentResourceOptions,
): EstateParts {
  const access = clusterAccess(cfg.cluster);

  const operator = new WmcoOperator(`${name}-operator`, { operator: cfg.operator, access }, child);
  // Node access through the cluster: the relay runs beside the operator. Everything that opens node sessions depends
  // on all its objects (relay.ready): created after them, and on destroy deleted before any of them goes.
  const relay =
    cfg.nodeAccess.via === "cluster" && access
      ? new NodeRelay(
          `${name}-node-relay`,
          {
            namespace: operator.namespace,
            platform: "openshift",
            image: cfg.nodeAccess.bastionImage ?? RELAY_IMAGE,
            replicas: relayReplicas(cfg.nodeAccess.relayReplicas, cfg.discovered?.relayNodes),
            connectTimeoutSeconds: cfg.nodeAccess.connectTimeoutSeconds,
            subjects: cfg.nodeAccess.portForwardSubjects,
          },
          { ...child, dependsOn: [operator] },
        )
      : undefined;
  const relayReady = relay?.ready ?? [];
  const hop = nodePath(cfg);

  // Key rotation without lockout, in the order WMCO needs (day2-facts §4.2): every BYOH host authorizes the key
  // first (beside the old one) → cloud-private-key changes in place → WMCO adopts it (WmcoKeyAdopted) → the old key
  // leaves the hosts (RetiredWmcoKeys). So the hosts come before the Secret, and windows-instances after it.
  let keyDeclared: (r: pulumi.Resource[]) => void = () => undefined;
  const afterKey = new Promise<pulumi.Resource[]>((resolve) => (keyDeclared = resolve));
  const byohHosts = expandByoh(cfg.byoh);
  // VMs this stack creates for byoh entries with an aws or azure block: ready for SSH with the WMCO key.
  const toCreate = byohHosts.flatMap((h) =>
    h.kind === "manual" ? [] : cloudHostOf(h.key, h.entry.windowsServer, h.entry),
  );
  const created = declareCloudHosts(`${name}-byoh-vms`, toCreate, cfg, { wmco: true }, child);
  const byoh =
    byohHosts.length > 0
      ? new ByohHosts(
          `${name}-byoh`,
          {
            hosts: byohHosts,
            ...(created
              ? { created: { addresses: created.addresses, vms: created.vms, nodeNames: created.nodeNames } }
              : {}),
            path: hop,
            namespace: operator.namespace,
            wmcoPublicKey: pulumi.output(cfg.privateKey.parsed?.publicKey),
            wmcoPrivateKey: pulumi.secret(cfg.privateKey.pem),
            access,
            keepUntilDeconfigured: afterKey,
          },
          { ...child, dependsOn: [operator, ...relayReady] },
        )
      : undefined;
  // The Secret waits for the running operator: WMCO only starts watching it once its CSV has succeeded, and a
  // Secret in a namespace that OLM is still setting up would race the OperatorGroup.
  const key = new WmcoPrivateKey(
    `${name}-key`,
    // Render mode writes Secrets in plaintext into the render directory: the key only with an explicit opt-in.
    {
      namespace: operator.namespace,
      privateKey: cfg.privateKey,
      declareSecret: cfg.cluster.render === undefined || cfg.cluster.renderKeySecret === true,
    },
    { ...child, dependsOn: [operator, ...(byoh?.prepared ?? [])] },
  );
  keyDeclared([key, operator]);
  // Day-2 jobs wait for WMCO to adopt the key: after a key change WMCO re-keys BYOH nodes and rewrites the user data
  // (and replaces Machines whose pub-key-hash is stale: controllers/windowsmachine_controller.go), so a reboot or
  // patch started before that would fail at connect.
  const keyAdopted =
    byoh && access
      ? new WmcoKeyAdopted(
          `${name}-key-adopted`,
          { publicKey: key.publicKey.apply((k) => k ?? ""), kubeconfig: access.kubeconfig, context: access.context },
          { ...child, dependsOn: [key] },
        )
      : undefined;
  if (byoh && keyAdopted) {
    byoh.prepared.forEach(
      (host, i) =>
        new RetiredWmcoKeys(
          `${name}-byoh-${byohHosts[i].key}-retired-keys`,
          {
            connection: pulumi.all([host.connection, key.privateKeyPem]).apply(([c, pem]) => ({
              ...c,
              privateKey: pem,
              password: undefined,
            })),
            hostKey: host.hostKey,
            keep: key.publicKey.apply((k) => k ?? ""),
            retire: host.retiringKeys.apply((k) => k ?? []),
          },
          { parent: byoh, dependsOn: [keyAdopted, host] },
        ),
    );
  }

  // MachineSets must not exist before windows-user-data: the Machine API would fail every Machine on the missing
  // Secret. WMCO writes it once it sees cloud-private-key, so the gate is a wait on the Secret itself. In render
  // mode there is no cluster to ask: the MachineSets come after the operator objects and the key (which render
  // mode may leave out), and whoever applies the files must let WMCO write windows-user-data first.
  const machineSetGate = [
    access && cfg.machineSets.length > 0
      ? new ObjectExists(
          `${name}-windows-user-data`,
          {
            apiVersion: "v1",
            kind: "Secret",
            namespace: MACHINE_API_NAMESPACE,
            name: USER_DATA_SECRET,
            dataKey: "userData",
            kubeconfig: access.kubeconfig,
            context: access.context,
          },
          { ...child, dependsOn: [key] },
        )
      : key,
    operator,
  ];
  // Keyed by the MachineSet's own name: removing or reordering entries touches no other set. Stacks made before
  // keyed them by list position (`<name>-ms-<i>`); the alias lets those migrate without a replacement (do that
  // first `pulumi up` with the list unchanged, since an alias cannot tell which entry used to sit at index i).
  const sets = cfg.machineSets.map(
    (set, i) =>
      new WindowsMachineSet(
        `${name}-ms-${machineSetName(cfg.cluster.platform, cfg.cluster.infrastructureId, set)}`,
        {
          cluster: cfg.cluster,
          set,
          amiLookup: isOffline() ? "placeholder" : "lookup",
          ...(access ? { access } : {}),
          ...(cfg.discovered?.machines ? { machines: cfg.discovered.machines } : {}),
          ...(cfg.discovered?.machineSetReplicas ? { machineSetReplicas: cfg.discovered.machineSetReplicas } : {}),
        },
        { ...child, dependsOn: machineSetGate, aliases: [{ name: `${name}-ms-${i}` }] },
      ),
  );
  // The Windows Server versions in use: the RuntimeClasses published, and those the inventory expects to find.
  const versions = [...cfg.machineSets.map((s) => s.windowsServer), ...cfg.byoh.map((h) => h.windowsServer)];
  const runtimeClasses = new WindowsRuntimeClasses(`${name}-runtimeclasses`, { versions }, child);

  const machineSetsOut = pulumi.all(
    sets.map((ms, i) =>
      pulumi.all([ms.name, ms.replicas, ms.replacing]).apply(([msName, replicas, replacing]) => ({
        name: msName,
        platform: cfg.cluster.platform,
        windowsServer: cfg.machineSets[i].windowsServer,
        windowsBuild: ms.windowsBuild,
        replicas,
        // With `rollout`: the Machines on an older image that this update replaces.
        ...(replacing ? { replacing } : {}),
      })),
    ),
  );
  const mirrors = new WindowsRegistryMirrors(
    `${name}-mirrors`,
    {
      mirrors: cfg.mirrors,
      registriesWithCredentials: cfg.registriesWithCredentials,
      clusterMirrorSets: cfg.discovered?.mirrorSets,
    },
    child,
  );
  const replacingKnown = new Set(sets.flatMap((ms) => ms.replacingKnown ?? []));
  // `pulumi up` is done when WMCO has configured every node this stack stands for, not when it has written the
  // ConfigMap and the MachineSets: WMCO reports its failures only as Events (providers/kube-wait/joins.ts).
  const byohAddresses = pulumi.all(
    byohHosts.map((h) => (h.kind === "manual" ? h.address : isOffline() ? h.key : (created?.addresses[h.key] ?? ""))),
  );
  const expectedSets = sets.flatMap((ms, i) =>
    cfg.machineSets[i].replicas > 0 ? [{ ms, replicas: cfg.machineSets[i].replicas }] : [],
  );
  const joined =
    access && cfg.waitForNodes.enabled && (byoh || expectedSets.length > 0)
      ? new WindowsNodesJoined(
          `${name}-nodes-joined`,
          {
            namespace: operator.namespace,
            byoh: byohAddresses,
            machineSets: expectedSets.map((e) => ({ name: e.ms.name, replicas: e.replicas })),
            operatorVersion: operator.version.apply((v) => v ?? ""),
            kubeconfig: access.kubeconfig,
            context: access.context,
            timeoutSeconds: cfg.waitForNodes.timeoutSeconds,
          },
          { ...child, dependsOn: [operator, ...sets, ...(byoh ? [byoh.instances] : [])] },
        )
      : undefined;
  // How day-2 operations reach nodes: the WMCO key, BYOH users and pins, the configured path.
  const hostKeys: Record<string, string> = {};
  for (const h of cfg.byoh) if (h.hostKey && h.address) hostKeys[h.address] = h.hostKey;
  // BYOH users by address; a created VM's address is its private IP, known once it exists.
  const byohUsers = byohAddresses.apply((addresses) =>
    Object.fromEntries(byohHosts.map((h, i) => [addresses[i], h.username])),
  );
  const reach = pulumi.all([key.privateKeyPem, byohUsers]).apply(([pem, users]) => ({
    platform: cfg.cluster.platform,
    privateKey: pem,
    byohUsers: users,
    hostKeys: { ...hostKeys, ...cfg.nodeAccess.hostKeys },
    trustOnFirstUse: cfg.nodeAccess.trustOnFirstUse,
    connectTimeoutSeconds: cfg.nodeAccess.connectTimeoutSeconds,
    ...(hop.proxy ? { jumpHost: hop.proxy } : {}),
    ...(hop.cluster ? { cluster: hop.cluster } : {}),
  }));
  const day2After = [
    operator,
    key,
    ...sets,
    ...relayReady,
    ...(keyAdopted ? [keyAdopted] : []),
    ...(joined ? [joined] : []),
  ];
  const inventory = stackInventory(cfg, versions, [
    ...cfg.machineSets.map((m) => ({
      from: `MachineSet ${machineSetName(cfg.cluster.platform, cfg.cluster.infrastructureId, m) ?? "(named at preview/up)"}`,
      node: `<${m.replicas} node(s) the MachineSet creates>`,
      windowsServer: m.windowsServer,
      build: WINDOWS_SERVER[m.windowsServer].build,
    })),
    ...byohHosts.map((h) => ({
      from: `BYOH ${h.key}${h.kind === "manual" ? "" : ` (created on ${h.kind === "aws" ? "AWS" : "Azure"})`}`,
      windowsServer: h.entry.windowsServer,
      build: WINDOWS_SERVER[h.entry.windowsServer].build,
    })),
  ]);
  for (const w of inventory.warnings) pulumi.log.warn(w, parent);
  // Disruptive jobs of one update run one after another (patching, then the reboot): both would otherwise batch the
  // same node first and overlap. Across stacks the day-2 Lease serializes them (providers/day2/day2-lock.ts).
  // BYOH hosts are patched in place; MachineSet nodes get a new image instead (WMCO never patches).
  const patching =
    cfg.patching && access
      ? new PatchRollout(
          `${name}-patching`,
          {
            patching: cfg.patching,
            nodes: cfg.discovered?.windowsNodes ?? [],
            isManaged: (n) => n.from.startsWith("BYOH "),
            // Nodes whose Machine this update's image rollout replaces are not left below the level.
            replacedByRollout: new Set(
              (cfg.discovered?.windowsNodes ?? [])
                .filter((n) => n.machine && replacingKnown.has(n.machine.split("/").pop() ?? ""))
                .map((n) => n.name),
            ),
            access,
            reach,
          },
          { ...child, dependsOn: day2After },
        )
      : undefined;
  let reboot: EstateParts["reboot"];
  if (cfg.reboot && access) {
    const r = cfg.reboot;
    const digest = tokenDigest(r.token);
    // Planned from the Windows nodes discovery read; nodes already rebooted for this token are left out.
    const nodes = (cfg.discovered?.windowsNodes ?? []).filter((n) =>
      Object.entries(r.nodeSelector).every(([k, v]) => n.labels[k] === v),
    );
    // A percentage is of every Windows node (the run counts them again before each batch).
    const plan = planRollout(
      nodes.map((n) => ({ name: n.name, doneFor: n.rebootedFor })),
      digest,
      resolveMaxUnavailable(r.maxUnavailable, cfg.discovered?.windowsNodes?.length ?? 0),
    );
    const closed = plan.batches.length > 0 ? outsideWindow(new Date(), r.window, "reboot") : undefined;
    const rolling = new RollingReboot(
      `${name}-reboot`,
      {
        token: r.token,
        batches: plan.batches,
        disableEviction: r.disableEviction,
        drainTimeoutSeconds: r.drainTimeoutSeconds,
        ...drainInputs(r),
        readyTimeoutSeconds: r.readyTimeoutSeconds,
        maxUnavailable: r.maxUnavailable,
        blockers: r.blockers,
        ...(r.window ? { window: r.window } : {}),
        kubeconfig: access.kubeconfig,
        context: access.context,
        reach,
      },
      // After everything else of this update: a reboot never races WMCO configuring a node we just changed, nor
      // this update's patching.
      { ...child, dependsOn: [...day2After, ...(patching ? [patching] : [])] },
    );
    reboot = {
      token: r.token,
      plan: closed ? `${plan.batches.flat().length} node(s) wait: ${closed}` : describeRollout(plan),
      batches: rolling.batches,
    };
  }
  return {
    operatorNamespace: operator.namespace,
    installedCSV: operator.installedCSV,
    publicKey: key.publicKey,
    publicKeyFingerprint: key.fingerprint,
    machineSets: machineSetsOut,
    runtimeClasses: runtimeClasses.names,
    windowsRegistryConfig: mirrors.windowsRegistryConfig,
    windowsNodeFiles: mirrors.windowsNodeFiles,
    windowsRegistrySources: mirrors.windowsRegistrySources,
    ...(reboot ? { reboot } : {}),
    inventory: inventory.entries,
    ...(patching ? { patching: patching.summary, hostStatus: patching.hostStatus } : {}),
    ...(created ? { createdHostsFirstBoot: pulumi.output(created.firstBoot) } : {}),
    byohHosts: byoh ? byoh.hosts : pulumi.output([]),
  };
}
