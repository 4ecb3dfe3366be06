/**
 * The real machine-api in the lab: machine-api-operator's `machineset` program (the MachineSet controller and the
 * four Machine/MachineSet admission webhooks in one binary, `cmd/machineset/main.go` at MACHINE_API_OPERATOR_VERSION),
 * run out of cluster on free ports (the webhook server on every interface: see startMachineApi), and the
 * Mutating/ValidatingWebhookConfigurations machine-api-operator registers for it (`pkg/webhooks/config.go`), here
 * with a URL clientConfig and the lab's CA in place of the in-cluster Service and the service CA's injected bundle.
 *
 * The webhooks read `Infrastructure/cluster` (platformStatus, infrastructureName) and `DNS/cluster` once, when the
 * program starts (`pkg/webhooks/machine_webhook.go` getInfra, getDNS, called by NewMachineSetDefaulter and the other
 * three constructors): so it starts after the seed, and a lab's platform is fixed for its life.
 */
import * as fs from "fs";
import * as path from "path";
import { leafCertificate } from "./certs";
import { createAll, LabClient } from "./kube";
import { statusMessage } from "../lib/kube-api";
import { freePort, localStatus, startDetached, Started, waitFor } from "./processes";
import { MACHINE_API_OPERATOR_VERSION } from "./programs";
import { OpenShiftPlatform, PLATFORMS } from "./seed/openshift";

export const MACHINE_API_NAMESPACE = "openshift-machine-api";

/** The credentials Secret each platform's MachineSets name (the webhooks' default*CredentialsSecret, machine_webhook.go). */
export const CREDENTIALS_SECRETS: Record<OpenShiftPlatform, string> = {
  aws: "aws-cloud-credentials",
  azure: "azure-cloud-credentials",
  gcp: "gcp-cloud-credentials",
  vsphere: "vsphere-cloud-credentials",
  nutanix: "nutanix-credentials",
};

/**
 * What machine-api reads that the installer and the cloud credential operator write: `DNS/cluster` (openshift/
 * installer pkg/asset/manifests/dns.go: the base domain and, with public DNS, a public zone; the webhooks read
 * `spec.publicZone`, nil meaning a disconnected cluster: `dnsDisconnected` in machine_webhook.go), and the
 * platform's credentials Secret in openshift-machine-api, whose absence the validating webhooks warn of
 * (`credentialsSecretExists`). Its values are placeholders: no cloud API is called here.
 */
export function machineApiSeed(platform: OpenShiftPlatform, infrastructureName?: string): Record<string, unknown>[] {
  const id = infrastructureName ?? PLATFORMS[platform].infrastructureName;
  return [
    {
      apiVersion: "config.openshift.io/v1",
      kind: "DNS",
      metadata: { name: "cluster" },
      spec: {
        baseDomain: `${id}.lab.example`,
        publicZone: { id: "lab-public-zone" },
        privateZone: { id: `${id}-private-zone` },
      },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: CREDENTIALS_SECRETS[platform], namespace: MACHINE_API_NAMESPACE },
      stringData: { lab: "placeholder: the lab calls no cloud API" },
    },
  ];
}

/** The webhook paths and names of pkg/webhooks/config.go (DefaultMachine*HookPath, Machine*Webhook). */
const HOOKS = {
  mutating: [
    {
      name: "default.machine.machine.openshift.io",
      path: "/mutate-machine-openshift-io-v1beta1-machine",
      resource: "machines",
    },
    {
      name: "default.machineset.machine.openshift.io",
      path: "/mutate-machine-openshift-io-v1beta1-machineset",
      resource: "machinesets",
    },
  ],
  validating: [
    {
      name: "validation.machine.machine.openshift.io",
      path: "/validate-machine-openshift-io-v1beta1-machine",
      resource: "machines",
    },
    {
      name: "validation.machineset.machine.openshift.io",
      path: "/validate-machine-openshift-io-v1beta1-machineset",
      resource: "machinesets",
    },
  ],
} as const;

/**
 * The two webhook configurations of config.go (NewMachineMutatingWebhookConfiguration,
 * NewMachineValidatingWebhookConfiguration), both named `machine-api`: failurePolicy Ignore, sideEffects None,
 * admissionReviewVersions v1; the mutating hooks on CREATE only, the validating ones on CREATE and UPDATE. The
 * clientConfig is a URL on the local webhook server with the lab's CA as caBundle.
 */
export function webhookConfigurations(port: number, caPem: string): Record<string, unknown>[] {
  const common = (h: { name: string; path: string; resource: string }, operations: string[]) => ({
    name: h.name,
    admissionReviewVersions: ["v1"],
    failurePolicy: "Ignore",
    sideEffects: "None",
    clientConfig: { url: `https://127.0.0.1:${port}${h.path}`, caBundle: Buffer.from(caPem).toString("base64") },
    rules: [{ apiGroups: ["machine.openshift.io"], apiVersions: ["v1beta1"], resources: [h.resource], operations }],
  });
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: "machine-api" },
      webhooks: HOOKS.mutating.map((h) => common(h, ["CREATE"])),
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "machine-api" },
      webhooks: HOOKS.validating.map((h) => common(h, ["CREATE", "UPDATE"])),
    },
  ];
}

/** A serving certificate for 127.0.0.1 signed by the lab's CA, as `tls.crt`/`tls.key` in `dir` (controller-runtime's
 * webhook server reads those names from its CertDir: pkg/webhook/server.go). */
function webhookCertificate(dir: string, caCert: string, caKey: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  leafCertificate(dir, "tls", "/CN=machine-api-webhook", "serverAuth", "IP:127.0.0.1,DNS:localhost", {
    cert: caCert,
    key: caKey,
  });
  for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o600);
}

/**
 * Two dry runs the webhooks refuse in their own words, once the API server calls them (with failurePolicy Ignore
 * nothing else would tell that they are in force): a Machine without `providerSpec.value`, refused by the mutating
 * configuration's `default.machine.machine.openshift.io` (machine_webhook.go `unmarshalInto`: "a value must be
 * provided"), and a MachineSet whose selector does not match its template's labels, defaulted and then refused by the
 * validating configuration's `validation.machineset.machine.openshift.io` (machineset_webhook.go
 * validateMachineSetSpec).
 */
async function webhooksInForce(client: LabClient): Promise<boolean> {
  const base = `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}`;
  const refusedBy = async (resource: string, body: Record<string, unknown>, hook: string) => {
    const r = await client.request("POST", `${base}/${resource}?dryRun=All`, body);
    return r.status >= 400 && statusMessage(r).includes(`admission webhook "${hook}" denied`);
  };
  const metadata = { name: "lab-webhook-probe", namespace: MACHINE_API_NAMESPACE };
  return (
    (await refusedBy(
      "machines",
      { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata, spec: {} },
      "default.machine.machine.openshift.io",
    )) &&
    refusedBy(
      "machinesets",
      {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "MachineSet",
        metadata,
        spec: {
          replicas: 0,
          selector: { matchLabels: { "lab.windows-estate/probe": "a" } },
          template: {
            metadata: { labels: { "lab.windows-estate/probe": "b" } },
            spec: { providerSpec: { value: {} } },
          },
        },
      },
      "validation.machineset.machine.openshift.io",
    )
  );
}

/**
 * Seeds what machine-api reads (machineApiSeed), starts `machineset` for this lab and registers its webhooks; returns once the controller reports ready and the API
 * server calls the webhooks. Every port is a free one, so labs run side by side: metrics and health on 127.0.0.1; the
 * webhook server listens on every interface (cmd/machineset/main.go passes controller-runtime's webhook.Options no Host,
 * and no flag sets one), behind TLS with the lab's certificate.
 */
export async function startMachineApi(o: {
  platform: OpenShiftPlatform;
  infrastructureName?: string;
  bin: string;
  runDir: string;
  kubeconfig: string;
  pki: { caCert: string; caKey: string };
  client: LabClient;
  started: (p: Started) => Started;
  log: (line: string) => void;
}): Promise<void> {
  await createAll(o.client, machineApiSeed(o.platform, o.infrastructureName));
  const certDir = path.join(o.runDir, "pki", "machine-api-webhook");
  webhookCertificate(certDir, o.pki.caCert, o.pki.caKey);
  const [metrics, health, webhook] = [await freePort(), await freePort(), await freePort()];
  o.log(
    `starting machine-api-operator's machineset ${MACHINE_API_OPERATOR_VERSION} (webhooks on 127.0.0.1:${webhook}, health on ${health})`,
  );
  const p = o.started(
    startDetached(
      "machineset",
      o.bin,
      [
        `--namespace=${MACHINE_API_NAMESPACE}`,
        `--kubeconfig=${o.kubeconfig}`,
        `--metrics-bind-address=127.0.0.1:${metrics}`,
        `--health-addr=127.0.0.1:${health}`,
        `--webhook-port=${webhook}`,
        `--webhook-cert-dir=${certDir}`,
      ],
      path.join(o.runDir, "logs", "machineset.log"),
    ),
  );
  // The manager's health probe server is plain HTTP.
  await waitFor(p, "ready", async () => (await localStatus(health, "/readyz")) === 200, 120_000);
  await createAll(o.client, webhookConfigurations(webhook, fs.readFileSync(o.pki.caCert, "utf8")));
  await waitFor(p, "serving its webhooks", () => webhooksInForce(o.client), 60_000);
}
