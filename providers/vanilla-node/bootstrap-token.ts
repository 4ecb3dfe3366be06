/**
 * A kubeadm bootstrap token for joining Windows nodes, as the Secret the API server's bootstrap authenticator reads
 * (`kube-system/bootstrap-token-<id>`, type `bootstrap.kubernetes.io/token`; bootstrap-tokens.md): short-lived,
 * replaced once half its lifetime has passed, never printed. The token only leaves this provider as a secret output.
 */
import type * as pulumi from "@pulumi/pulumi";
import { randomInt } from "crypto";
import { BOOTSTRAP_GROUP } from "../../facts/kubernetes";
import { connectKube } from "../kube-wait/api";
import { get, str } from "../../lib/json";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const random = (n: number) => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");

/** The token's shape the authenticator accepts: `[a-z0-9]{6}.[a-z0-9]{16}`. */
export const TOKEN_PATTERN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;

export interface BootstrapTokenInputs {
  ttlHours: number;
  kubeconfig?: string;
  context?: string;
  __provider?: string;
}

export interface BootstrapTokenOutputs extends BootstrapTokenInputs {
  tokenId: string;
  /** `<id>.<secret>`: a secret output. */
  token: string;
  /** RFC 3339. */
  expiration: string;
}

/** The Secret for a token: usable for authentication and for signing `cluster-info` (token discovery). */
export function bootstrapTokenSecret(id: string, secret: string, expiration: string, description: string) {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: `bootstrap-token-${id}`,
      namespace: "kube-system",
      labels: { "app.kubernetes.io/managed-by": "windows-estate" },
    },
    type: "bootstrap.kubernetes.io/token",
    data: {
      description: b64(description),
      "token-id": b64(id),
      "token-secret": b64(secret),
      expiration: b64(expiration),
      "usage-bootstrap-authentication": b64("true"),
      "usage-bootstrap-signing": b64("true"),
      // Every binding kubeadm creates for joins targets this group (kubeadm implementation-details.md).
      "auth-extra-groups": b64(BOOTSTRAP_GROUP),
    },
  };
}

/** Whether a token should be replaced now: past half of its lifetime (so a join never races its expiry). */
export function needsRotation(expiration: string, ttlHours: number, now = Date.now()): boolean {
  const end = Date.parse(expiration);
  return !Number.isFinite(end) || end - now < (ttlHours * 3_600_000) / 2;
}

async function createToken(i: BootstrapTokenInputs): Promise<BootstrapTokenOutputs> {
  const api = await connectKube(i, 30_000);
  const id = random(6);
  const secret = random(16);
  const expiration = new Date(Date.now() + i.ttlHours * 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");
  const body = bootstrapTokenSecret(id, secret, expiration, "windows-estate: joins Windows nodes");
  const r = await api.request("POST", "/api/v1/namespaces/kube-system/secrets", body);
  if (r.status < 200 || r.status >= 300)
    throw new Error(
      `creating bootstrap token Secret kube-system/bootstrap-token-${id} failed: the API answered ${r.status} ${str(get(r.body, "message")) ?? ""}`.trim(),
    );
  return { ...i, tokenId: id, token: `${id}.${secret}`, expiration };
}

async function deleteToken(o: BootstrapTokenOutputs): Promise<void> {
  const api = await connectKube(o, 30_000);
  const r = await api.request("DELETE", `/api/v1/namespaces/kube-system/secrets/bootstrap-token-${o.tokenId}`);
  if (r.status >= 300 && r.status !== 404)
    throw new Error(`deleting kube-system/bootstrap-token-${o.tokenId} failed: the API answered ${r.status}`);
}

export const bootstrapTokenProvider: pulumi.dynamic.ResourceProvider = {
  async diff(_id: string, olds: BootstrapTokenOutputs, news: BootstrapTokenInputs) {
    const rotate = needsRotation(olds.expiration, news.ttlHours) || olds.ttlHours !== news.ttlHours;
    const access =
      olds.kubeconfig !== news.kubeconfig || olds.context !== news.context || olds.__provider !== news.__provider;
    return { changes: rotate || access, replaces: rotate ? ["ttlHours"] : [], deleteBeforeReplace: false };
  },
  async create(inputs: BootstrapTokenInputs) {
    const outs = await createToken(inputs);
    return { id: `kube-system/bootstrap-token-${outs.tokenId}`, outs };
  },
  async read(id: string, props?: BootstrapTokenOutputs) {
    if (!props) return { id, props: {} };
    const api = await connectKube(props, 30_000);
    const found = await api.get(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${props.tokenId}`);
    // Gone (the token cleaner removes expired tokens): an expiration in the past makes the next up replace it.
    return { id, props: found ? props : { ...props, expiration: "1970-01-01T00:00:00Z" } };
  },
  async update(_id: string, _olds: BootstrapTokenOutputs, news: BootstrapTokenInputs) {
    return { outs: { ..._olds, ...news } };
  },
  async delete(_id: string, props: BootstrapTokenOutputs) {
    await deleteToken(props);
  },
};
