import * as pulumi from "@pulumi/pulumi";
import { EstateConfig } from "../stacks/load";
import { clusterAccess } from "./cluster-access";
import { ObjectExists } from "../providers/kube-wait/resources";
import { isOffline } from "../stacks/offline";
import { ByohHosts } from "./byoh/byoh-hosts";
import { WmcoPrivateKey } from "./key/private-key";
import { MACHINE_API_NAMESPACE, USER_DATA_SECRET } from "./machinesets/common";
import { WindowsRegistryMirrors } from "./mirrors/registry-mirrors";
import { WindowsMachineSet } from "./machinesets/machineset";
import { machineSetName } from "./machinesets/names";
import { WmcoOperator } from "./operator/operator";
import { WindowsRuntimeClasses } from "./scheduling/runtime-classes";

export interface WindowsEstateArgs {
  /** The stack's validated config (`loadEstateConfig`). */
  config: EstateConfig;
}

/**
 * The whole Windows estate of one cluster, wired in the order WMCO needs:
 * operator (running) → `cloud-private-key` → (WMCO writes `windows-user-data`) → MachineSets, BYOH hosts,
 * mirrors and RuntimeClasses.
 */
export class WindowsEstate extends pulumi.ComponentResource {
  readonly operatorNamespace: pulumi.Output<string>;
  readonly installedCSV: pulumi.Output<string | undefined>;
  readonly publicKey: pulumi.Output<string | undefined>;
  readonly publicKeyFingerprint: pulumi.Output<string | undefined>;
  /** Per MachineSet: name, platform, Windows Server version and build, replicas. */
  readonly machineSets: pulumi.Output<
    { name: string; platform: string; windowsServer: string; windowsBuild: string; replicas: number }[]
  >;
  /** RuntimeClass names for the Windows builds in use. */
  readonly runtimeClasses: pulumi.Output<string[]>;
  /** The containerd hosts.toml files every Windows node gets, by registry directory (credentials redacted). */
  readonly windowsRegistryConfig: Record<string, string>;
  /** The same files by full Windows path. */
  readonly windowsNodeFiles: Record<string, string>;
  /** Which mirror sets each registry's file comes from, and what the files cover. */
  readonly windowsRegistrySources: { scope: string; byRegistry: Record<string, string[]> };
  /** Bring-your-own hosts as prepared: address, hostname, Windows Server version, host key fingerprint. */
  readonly byohHosts: pulumi.Output<
    { address: string; hostname: string; windowsServer: string; hostKeyFingerprint: string }[]
  >;

  constructor(name: string, args: WindowsEstateArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WindowsEstate", name, {}, opts);
    const cfg = args.config;
    const access = clusterAccess(cfg.cluster);

    const operator = new WmcoOperator(`${name}-operator`, { operator: cfg.operator, access }, { parent: this });
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
      { parent: this, dependsOn: [operator] },
    );

    // MachineSets must not exist before windows-user-data: the Machine API would fail every Machine on the missing
    // Secret. WMCO writes it once it sees cloud-private-key, so the gate is a wait on the Secret itself. In render
    // mode there is no cluster to ask: the MachineSets come after the operator objects and the key (which render
    // mode may leave out), and whoever applies the files must let WMCO write windows-user-data first.
    const machineSetGate: pulumi.Resource[] = [key, operator];
    if (access && cfg.machineSets.length > 0) {
      machineSetGate.splice(
        0,
        1,
        new ObjectExists(
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
          { parent: this, dependsOn: [key] },
        ),
      );
    }
    // Keyed by the MachineSet's own name: removing or reordering entries touches no other set. Stacks made before
    // keyed them by list position (`<name>-ms-<i>`); the alias lets those migrate without a replacement (do that
    // first `pulumi up` with the list unchanged, since an alias cannot tell which entry used to sit at index i).
    const sets = cfg.machineSets.map(
      (set, i) =>
        new WindowsMachineSet(
          `${name}-ms-${machineSetName(cfg.cluster.platform, cfg.cluster.infrastructureId, set)}`,
          { cluster: cfg.cluster, set, amiLookup: isOffline() ? "placeholder" : "lookup" },
          { parent: this, dependsOn: machineSetGate, aliases: [{ name: `${name}-ms-${i}` }] },
        ),
    );
    const runtimeClasses = new WindowsRuntimeClasses(
      `${name}-runtimeclasses`,
      { versions: [...cfg.machineSets.map((s) => s.windowsServer), ...cfg.byoh.map((h) => h.windowsServer)] },
      { parent: this },
    );

    this.machineSets = pulumi.all(
      sets.map((ms, i) =>
        pulumi.all([ms.name, ms.replicas]).apply(([msName, replicas]) => ({
          name: msName,
          platform: cfg.cluster.platform,
          windowsServer: cfg.machineSets[i].windowsServer,
          windowsBuild: ms.windowsBuild,
          replicas,
        })),
      ),
    );
    this.runtimeClasses = runtimeClasses.names;
    const mirrors = new WindowsRegistryMirrors(
      `${name}-mirrors`,
      {
        mirrors: cfg.mirrors,
        registriesWithCredentials: cfg.registriesWithCredentials,
        clusterMirrorSets: cfg.discovered?.mirrorSets,
      },
      { parent: this },
    );
    this.windowsRegistrySources = mirrors.windowsRegistrySources;
    this.windowsRegistryConfig = mirrors.windowsRegistryConfig;
    if (cfg.byoh.length > 0) {
      const byoh = new ByohHosts(
        `${name}-byoh`,
        {
          hosts: cfg.byoh,
          namespace: operator.namespace,
          wmcoPublicKey: key.publicKey,
          wmcoPrivateKey: key.privateKeyPem,
          access,
          keepUntilDeconfigured: [key, operator],
        },
        { parent: this, dependsOn: [key] },
      );
      this.byohHosts = byoh.hosts;
    } else {
      this.byohHosts = pulumi.output([]);
    }
    this.windowsNodeFiles = mirrors.windowsNodeFiles;
    this.operatorNamespace = operator.namespace;
    this.installedCSV = operator.installedCSV;
    this.publicKey = key.publicKey;
    this.publicKeyFingerprint = key.fingerprint;
    this.registerOutputs({
      operatorNamespace: this.operatorNamespace,
      installedCSV: this.installedCSV,
      publicKey: this.publicKey,
      publicKeyFingerprint: this.publicKeyFingerprint,
      machineSets: this.machineSets,
      runtimeClasses: this.runtimeClasses,
      windowsRegistryConfig: this.windowsRegistryConfig,
      byohHosts: this.byohHosts,
    });
  }
}
