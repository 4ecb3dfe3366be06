// A table, not logic: one row per Go field, transcribed from its declaration with file:line, so rows repeat in shape.
/**
 * The openshift/api Go types of the five providerSpecs, as far as the program renders them, and a model of what
 * machine-api's defaulting webhook does to a providerSpec: decode it into the type (encoding/json through
 * sigs.k8s.io/yaml) and marshal it again (machine-api-operator 88465550a74b pkg/webhooks/machine_webhook.go, e.g.
 * `defaultAzure`: `yaml.Unmarshal(m.Spec.ProviderSpec.Value.Raw, &providerSpec)` … `json.Marshal(providerSpec)`).
 *
 * Each field is its Go declaration's JSON tag, copied from github.com/openshift/api at the version the lab pins
 * (lab/tools/crds/go.mod: v0.0.0-20251015095338-264e80a2b6e7), with its line; the version machine-api-operator pins
 * (v0.0.0-20260213204242-d34f11c515b3) declares these fields identically (it adds AWS and GCP fields the program does
 * not render). Shared types: k8s.io/apimachinery and k8s.io/api v0.34.1 (machine-api-operator's pins).
 * Only rendered fields are listed: a Go field the program leaves out comes back as its zero value, which
 * pulumi-kubernetes prunes away before it compares (provider.go `pruneLiveState`), so it never matters here.
 */
import { isObject } from "../../lib/json";

export type GoType =
  | { k: "string" | "int" | "bool" | "quantity" | "time" }
  | { k: "ptr"; to: GoType }
  | { k: "slice"; of: GoType }
  | { k: "struct"; name: string; fields: GoField[] };

export interface GoField {
  /** The JSON name from the tag. */
  json: string;
  omitempty: boolean;
  omitzero: boolean;
  type: GoType;
  /** `<file>:<line>` of the declaration. */
  at: string;
}

const S: GoType = { k: "string" };
const I: GoType = { k: "int" };
const B: GoType = { k: "bool" };
const Q: GoType = { k: "quantity" };
const T: GoType = { k: "time" };
const ptr = (to: GoType): GoType => ({ k: "ptr", to });
const slice = (of: GoType): GoType => ({ k: "slice", of });

/** A struct from `[Go field, its json tag as written, type, line]` rows of one file. */
function struct(name: string, file: string, rows: [string, string, GoType, number][]): GoType {
  return {
    k: "struct",
    name,
    fields: rows.map(([goName, tag, type, line]) => {
      const m = /^json:"([^,"]*)((?:,[a-z]+)*)"$/.exec(tag);
      if (!m) throw new Error(`bad tag ${tag} of ${name}.${goName}`);
      const options = m[2].split(",");
      return {
        json: m[1],
        omitempty: options.includes("omitempty"),
        omitzero: options.includes("omitzero"),
        type,
        at: `${file}:${line}`,
      };
    }),
  };
}

const META = "k8s.io/apimachinery@v0.34.1/pkg/apis/meta/v1/types.go";
const CORE = "k8s.io/api@v0.34.1/core/v1/types.go";
/** `metav1.TypeMeta` `json:",inline"`: its fields sit in the providerSpec itself. */
const typeMeta: [string, string, GoType, number][] = [
  ["Kind", 'json:"kind,omitempty"', S, 49],
  ["APIVersion", 'json:"apiVersion,omitempty"', S, 56],
];
const objectMeta = struct("ObjectMeta", META, [
  ["CreationTimestamp", 'json:"creationTimestamp,omitempty,omitzero"', T, 188],
]);
const localRef = struct("LocalObjectReference", CORE, [["Name", 'json:"name,omitempty"', S, 7369]]);
const secretRef = struct("SecretReference", CORE, [
  ["Name", 'json:"name,omitempty"', S, 1186],
  ["Namespace", 'json:"namespace,omitempty"', S, 1189],
]);

const AWS = "machine/v1beta1/types_awsprovider.go";
const awsFilter = struct("Filter", AWS, [
  ["Name", 'json:"name"', S, 292],
  ["Values", 'json:"values,omitempty"', slice(S), 295],
]);
const awsRef = struct("AWSResourceReference", AWS, [
  ["ID", 'json:"id,omitempty"', ptr(S), 266],
  ["ARN", 'json:"arn,omitempty"', ptr(S), 269],
  ["Filters", 'json:"filters,omitempty"', slice(awsFilter), 272],
]);
const aws = struct("AWSMachineProviderConfig", AWS, [
  ...typeMeta,
  ["ObjectMeta", 'json:"metadata,omitempty"', objectMeta, 15],
  ["AMI", 'json:"ami"', awsRef, 17],
  ["InstanceType", 'json:"instanceType"', S, 19],
  [
    "Tags",
    'json:"tags,omitempty"',
    slice(
      struct("TagSpecification", AWS, [
        ["Name", 'json:"name"', S, 301],
        ["Value", 'json:"value"', S, 303],
      ]),
    ),
    32,
  ],
  ["IAMInstanceProfile", 'json:"iamInstanceProfile,omitempty"', ptr(awsRef), 35],
  ["UserDataSecret", 'json:"userDataSecret,omitempty"', ptr(localRef), 39],
  ["CredentialsSecret", 'json:"credentialsSecret,omitempty"', ptr(localRef), 43],
  ["DeviceIndex", 'json:"deviceIndex"', I, 49],
  ["SecurityGroups", 'json:"securityGroups,omitempty"', slice(awsRef), 67],
  ["Subnet", 'json:"subnet"', awsRef, 69],
  [
    "Placement",
    'json:"placement"',
    struct("Placement", AWS, [
      ["Region", 'json:"region,omitempty"', S, 279],
      ["AvailabilityZone", 'json:"availabilityZone,omitempty"', S, 282],
    ]),
    71,
  ],
  [
    "BlockDevices",
    'json:"blockDevices,omitempty"',
    slice(
      struct("BlockDeviceMappingSpec", AWS, [
        [
          "EBS",
          'json:"ebs,omitempty"',
          ptr(
            struct("EBSBlockDeviceSpec", AWS, [
              ["Iops", 'json:"iops,omitempty"', ptr(I), 207],
              ["VolumeSize", 'json:"volumeSize,omitempty"', ptr(I), 219],
              ["VolumeType", 'json:"volumeType,omitempty"', ptr(S), 223],
            ]),
          ),
          158,
        ],
      ]),
    ),
    80,
  ],
  [
    "MetadataServiceOptions",
    'json:"metadataServiceOptions,omitempty"',
    struct("MetadataServiceOptions", AWS, [["Authentication", 'json:"authentication,omitempty"', S, 257]]),
    88,
  ],
]);

const AZURE = "machine/v1beta1/types_azureprovider.go";
const azure = struct("AzureMachineProviderSpec", AZURE, [
  ...typeMeta,
  ["ObjectMeta", 'json:"metadata,omitempty"', objectMeta, 41],
  ["UserDataSecret", 'json:"userDataSecret,omitempty"', ptr(secretRef), 45],
  ["CredentialsSecret", 'json:"credentialsSecret,omitempty"', ptr(secretRef), 48],
  ["Location", 'json:"location,omitempty"', S, 51],
  ["VMSize", 'json:"vmSize,omitempty"', S, 54],
  [
    "Image",
    'json:"image"',
    struct("Image", AZURE, [
      ["Publisher", 'json:"publisher"', S, 280],
      ["Offer", 'json:"offer"', S, 283],
      ["SKU", 'json:"sku"', S, 286],
      ["Version", 'json:"version"', S, 292],
      ["ResourceID", 'json:"resourceID"', S, 294],
    ]),
    56,
  ],
  [
    "OSDisk",
    'json:"osDisk"',
    struct("OSDisk", AZURE, [
      ["OSType", 'json:"osType"', S, 319],
      [
        "ManagedDisk",
        'json:"managedDisk"',
        struct("OSDiskManagedDiskParameters", AZURE, [["StorageAccountType", 'json:"storageAccountType"', S, 427]]),
        321,
      ],
      ["DiskSizeGB", 'json:"diskSizeGB"', I, 323],
    ]),
    58,
  ],
  ["PublicIP", 'json:"publicIP"', B, 66],
  ["Subnet", 'json:"subnet"', S, 79],
  ["PublicLoadBalancer", 'json:"publicLoadBalancer,omitempty"', S, 82],
  ["Vnet", 'json:"vnet,omitempty"', S, 94],
  ["Zone", 'json:"zone,omitempty"', S, 98],
  ["NetworkResourceGroup", 'json:"networkResourceGroup,omitempty"', S, 101],
  ["ResourceGroup", 'json:"resourceGroup,omitempty"', S, 104],
  [
    "Diagnostics",
    'json:"diagnostics,omitempty"',
    struct("AzureDiagnostics", AZURE, [
      [
        "Boot",
        'json:"boot,omitempty"',
        ptr(struct("AzureBootDiagnostics", AZURE, [["StorageAccountType", 'json:"storageAccountType"', S, 184]])),
        172,
      ],
    ]),
    147,
  ],
]);

const GCP = "machine/v1beta1/types_gcpprovider.go";
const gcp = struct("GCPMachineProviderSpec", GCP, [
  ...typeMeta,
  ["ObjectMeta", 'json:"metadata,omitempty"', objectMeta, 84],
  ["UserDataSecret", 'json:"userDataSecret,omitempty"', ptr(localRef), 88],
  ["CredentialsSecret", 'json:"credentialsSecret,omitempty"', ptr(localRef), 91],
  ["CanIPForward", 'json:"canIPForward"', B, 94],
  ["DeletionProtection", 'json:"deletionProtection"', B, 96],
  [
    "Disks",
    'json:"disks,omitempty"',
    slice(
      ptr(
        struct("GCPDisk", GCP, [
          ["AutoDelete", 'json:"autoDelete"', B, 217],
          ["Boot", 'json:"boot"', B, 219],
          ["SizeGB", 'json:"sizeGb"', I, 221],
          ["Type", 'json:"type"', S, 223],
          ["Image", 'json:"image"', S, 225],
        ]),
      ),
    ),
    99,
  ],
  [
    "NetworkInterfaces",
    'json:"networkInterfaces,omitempty"',
    slice(
      ptr(
        struct("GCPNetworkInterface", GCP, [
          ["Network", 'json:"network,omitempty"', S, 246],
          ["Subnetwork", 'json:"subnetwork,omitempty"', S, 250],
        ]),
      ),
    ),
    108,
  ],
  [
    "ServiceAccounts",
    'json:"serviceAccounts"',
    slice(
      struct("GCPServiceAccount", GCP, [
        ["Email", 'json:"email"', S, 256],
        ["Scopes", 'json:"scopes"', slice(S), 258],
      ]),
    ),
    110,
  ],
  ["Tags", 'json:"tags,omitempty"', slice(S), 112],
  ["MachineType", 'json:"machineType"', S, 118],
  ["Region", 'json:"region"', S, 120],
  ["Zone", 'json:"zone"', S, 122],
  ["ProjectID", 'json:"projectID,omitempty"', S, 125],
]);

const VSPHERE = "machine/v1beta1/types_vsphereprovider.go";
const vsphere = struct("VSphereMachineProviderSpec", VSPHERE, [
  ...typeMeta,
  ["ObjectMeta", 'json:"metadata,omitempty"', objectMeta, 16],
  ["UserDataSecret", 'json:"userDataSecret,omitempty"', ptr(localRef), 20],
  ["CredentialsSecret", 'json:"credentialsSecret,omitempty"', ptr(localRef), 23],
  ["Template", 'json:"template"', S, 26],
  [
    "Workspace",
    'json:"workspace,omitempty"',
    ptr(
      struct("Workspace", VSPHERE, [
        ["Server", 'json:"server,omitempty"', S, 234],
        ["Datacenter", 'json:"datacenter,omitempty"', S, 237],
        ["Folder", 'json:"folder,omitempty"', S, 240],
        ["Datastore", 'json:"datastore,omitempty"', S, 243],
        ["ResourcePool", 'json:"resourcePool,omitempty"', S, 246],
      ]),
    ),
    29,
  ],
  [
    "Network",
    'json:"network"',
    struct("NetworkSpec", VSPHERE, [
      [
        "Devices",
        'json:"devices"',
        slice(struct("NetworkDeviceSpec", VSPHERE, [["NetworkName", 'json:"networkName,omitempty"', S, 138]])),
        102,
      ],
    ]),
    31,
  ],
  ["NumCPUs", 'json:"numCPUs,omitempty"', I, 36],
  ["NumCoresPerSocket", 'json:"numCoresPerSocket,omitempty"', I, 42],
  ["MemoryMiB", 'json:"memoryMiB,omitempty"', I, 47],
  ["DiskGiB", 'json:"diskGiB,omitempty"', I, 53],
  ["Snapshot", 'json:"snapshot"', S, 62],
]);

const NUTANIX = "machine/v1/types_nutanixprovider.go";
const nutanixId = struct("NutanixResourceIdentifier", NUTANIX, [
  ["Type", 'json:"type"', S, 158],
  ["UUID", 'json:"uuid,omitempty"', ptr(S), 162],
  ["Name", 'json:"name,omitempty"', ptr(S), 166],
]);
const nutanix = struct("NutanixMachineProviderConfig", NUTANIX, [
  ...typeMeta,
  ["ObjectMeta", 'json:"metadata,omitempty"', objectMeta, 20],
  ["Cluster", 'json:"cluster"', nutanixId, 27],
  ["Image", 'json:"image"', nutanixId, 33],
  ["Subnets", 'json:"subnets"', slice(nutanixId), 40],
  ["VCPUsPerSocket", 'json:"vcpusPerSocket"', I, 45],
  ["VCPUSockets", 'json:"vcpuSockets"', I, 50],
  ["MemorySize", 'json:"memorySize"', Q, 55],
  ["SystemDiskSize", 'json:"systemDiskSize"', Q, 60],
  ["BootType", 'json:"bootType"', S, 67],
  ["Project", 'json:"project"', nutanixId, 71],
  ["UserDataSecret", 'json:"userDataSecret,omitempty"', ptr(localRef), 95],
  ["CredentialsSecret", 'json:"credentialsSecret"', ptr(localRef), 100],
]);

/** The Go type of each providerSpec `kind` the program renders. */
export const PROVIDER_SPEC_TYPES: Record<string, GoType> = {
  AWSMachineProviderConfig: aws,
  AzureMachineProviderSpec: azure,
  GCPMachineProviderSpec: gcp,
  VSphereMachineProviderSpec: vsphere,
  NutanixMachineProviderConfig: nutanix,
};

/**
 * What `Quantity.MarshalJSON` writes for a binary-suffixed quantity after `UnmarshalJSON` (k8s.io/apimachinery
 * v0.34.1 pkg/api/resource/quantity.go): the text as it came when `ParseQuantity` cached it (no fraction, a number
 * that is not a multiple of 8 and small enough for the fast path, l.298-340), else `CanonicalizeBytes` (l.424-461).
 * Written apart from lib/quantity.ts, which the builders use, so a mistake there does not hide here.
 */
export function goQuantity(q: string): string {
  const m = /^0*(\d*?)(?:\.(\d+))?(Ki|Mi|Gi|Ti|Pi|Ei)$/.exec(q);
  if (!m) throw new Error(`goQuantity models binary suffixes only: ${q}`);
  const [, digits, fraction, suffix] = m;
  const power = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].indexOf(suffix) + 1;
  const num = digits === "" ? "0" : digits;
  const fast = fraction === undefined && 14 - num.length - 3 * power >= 0;
  if (fast && q !== "0" && BigInt(num) % 8n !== 0n) return q;
  let bytes = BigInt(num + (fraction ?? "")) * 1024n ** BigInt(power);
  const tenths = 10n ** BigInt((fraction ?? "").length);
  if (bytes % tenths !== 0n) throw new Error(`goQuantity models whole bytes only: ${q}`);
  bytes /= tenths;
  if (bytes === 0n) return "0";
  let e = 0;
  if (bytes < 1024n) {
    for (; bytes % 1000n === 0n; e++) bytes /= 1000n;
    return `${bytes}${["", "k", "M", "G", "T", "P", "E"][e]}`;
  }
  for (; bytes % 1024n === 0n && e < 6; e++) bytes /= 1024n;
  return `${bytes}${["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][e]}`;
}

/**
 * encoding/json `Unmarshal` then `Marshal` of one value of type `t`; `v` undefined is an absent key. Unmarshal matches
 * keys "preferring an exact match but also accepting a case-insensitive match" and ignores unknown keys; null leaves
 * a value type at its zero value and sets pointers, slices and maps to nil. Marshal omits an `omitempty` field that is
 * false, 0, "", a nil pointer or an empty slice (never a struct), and an `omitzero` field that is its zero value
 * (`time.Time` by its IsZero). A zero `metav1.Time` marshals as null (time.go l.162).
 */
export function goRoundTrip(v: unknown, t: GoType): unknown {
  switch (t.k) {
    case "string":
      return typeof v === "string" ? v : expectNothing(v, t);
    case "int":
      return typeof v === "number" ? v : expectNothing(v, t, 0);
    case "bool":
      return typeof v === "boolean" ? v : expectNothing(v, t, false);
    case "quantity":
      return typeof v === "string" ? goQuantity(v) : expectNothing(v, t, "0");
    case "time":
      return typeof v === "string" ? v : expectNothing(v, t, null);
    case "ptr":
      return v === undefined || v === null ? null : goRoundTrip(v, t.to);
    case "slice":
      if (v === undefined || v === null) return null;
      if (!Array.isArray(v)) throw new Error(`not a list for a Go slice: ${JSON.stringify(v)}`);
      return v.map((e) => goRoundTrip(e, t.of));
    case "struct": {
      if (v !== undefined && v !== null && !isObject(v))
        throw new Error(`not an object for ${t.name}: ${JSON.stringify(v)}`);
      const input = isObject(v) ? v : {};
      const out: Record<string, unknown> = {};
      for (const f of t.fields) {
        const key = f.json in input ? f.json : Object.keys(input).find((k) => k.toLowerCase() === f.json.toLowerCase());
        const value = goRoundTrip(key === undefined ? undefined : input[key], f.type);
        if ((f.omitempty && goEmpty(value, f.type)) || (f.omitzero && goZero(value, f.type))) continue;
        out[f.json] = value;
      }
      return out;
    }
  }
}

function expectNothing(v: unknown, t: GoType, zero: unknown = ""): unknown {
  if (v !== undefined && v !== null) throw new Error(`${JSON.stringify(v)} cannot be decoded into a Go ${t.k}`);
  return zero;
}

/** encoding/json `isEmptyValue`, on the marshalled value. */
function goEmpty(v: unknown, t: GoType): boolean {
  switch (t.k) {
    case "string":
      return v === "";
    case "int":
      return v === 0;
    case "bool":
      return v === false;
    case "ptr":
      return v === null;
    case "slice":
      return v === null || (Array.isArray(v) && v.length === 0);
    default:
      return false;
  }
}

function goZero(v: unknown, t: GoType): boolean {
  if (t.k === "time") return v === null;
  if (t.k === "struct") return isObject(v) && t.fields.every((f) => !(f.json in v) || goZero(v[f.json], f.type));
  return goEmpty(v, t);
}

/** Keys of a rendered value that are not, exactly, a JSON name of the Go type there (paths like `a.b[0].c`). */
export function unknownKeys(v: unknown, t: GoType, at = ""): string[] {
  if (t.k === "ptr") return unknownKeys(v, t.to, at);
  if (t.k === "slice") return Array.isArray(v) ? v.flatMap((e, i) => unknownKeys(e, t.of, `${at}[${i}]`)) : [];
  if (t.k !== "struct" || !isObject(v)) return [];
  return Object.entries(v).flatMap(([k, e]) => {
    const f = t.fields.find((x) => x.json === k);
    const path = at ? `${at}.${k}` : k;
    return f ? unknownKeys(e, f.type, path) : [path];
  });
}

/** Every JSON path the Go type lists, with the declaration it comes from (for the listing test). */
export function fieldsOf(t: GoType, at = ""): [string, string][] {
  if (t.k === "ptr") return fieldsOf(t.to, at);
  if (t.k === "slice") return fieldsOf(t.of, `${at}[]`);
  if (t.k !== "struct") return [];
  return t.fields.flatMap((f) => {
    const path = at ? `${at}.${f.json}` : f.json;
    return [[path, f.at] as [string, string], ...fieldsOf(f.type, path)];
  });
}

/** pulumi-kubernetes reads inputs with `SkipNulls: true` (provider.go l.1344-1347): null-valued keys are not there. */
export function skipNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(skipNulls);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, e]) => e !== null)
      .map(([k, e]) => [k, skipNulls(e)]),
  );
}

/**
 * pulumi-kubernetes `pruneLiveState` → `pruneMap`/`pruneSlice` (util.go l.235 and l.272 at f47bc2d6f199): the live object cut
 * to the keys of the inputs, lists by index; Diff then compares it with the new inputs (a JSON merge patch, empty when
 * they are equal).
 */
export function pruneLive(live: unknown, inputs: unknown): unknown {
  if (isObject(live) && isObject(inputs)) {
    const out: Record<string, unknown> = {};
    for (const [k, e] of Object.entries(live)) if (k in inputs) out[k] = pruneLive(e, inputs[k]);
    return out;
  }
  if (Array.isArray(live) && Array.isArray(inputs)) {
    if (live.length === 0 || inputs.length === 0) return [];
    return inputs.slice(0, live.length).map((e, i) => pruneLive(live[i], e));
  }
  return live;
}
