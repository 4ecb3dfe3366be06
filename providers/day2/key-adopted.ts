/**
 * Key rotation's wait: WMCO has adopted the new key once every BYOH Node's `pub-key-hash` annotation is the new key's
 * hash and `windows-user-data` carries the new public key. That is the order WMCO's secret controller works in
 * (controllers/secret_controller.go `updateUserData`: annotate BYOH nodes, then rewrite the user data Secret); the
 * hash is SHA-256 of the authorized_keys form without newline (pkg/nodeconfig/nodeconfig.go
 * `CreatePubKeyHashAnnotation`). Only after this may the old key leave the hosts.
 */
import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";
import { MACHINE_API_NAMESPACE, USER_DATA_SECRET } from "../../facts/wmco";
import { BYOH_NODES_PATH } from "../../facts/wmco";
import { WMCO_PUB_KEY_HASH_ANNOTATION } from "../../facts/day2";
import { get, str } from "../../lib/json";
import { decodeNodes } from "./inventory";
import { connectKube, KubeApi } from "../kube-wait/api";

export function pubKeyHash(publicKey: string): string {
  return createHash("sha256").update(publicKey.trim().split(/\s+/).slice(0, 2).join(" ")).digest("hex");
}

/** What is still missing, or an empty list once WMCO has adopted the key. */
export async function adoptionGaps(api: KubeApi, publicKey: string): Promise<string[]> {
  const want = pubKeyHash(publicKey);
  const gaps: string[] = [];
  const nodes = await api.get(BYOH_NODES_PATH);
  for (const n of decodeNodes(nodes))
    if (n.annotations[WMCO_PUB_KEY_HASH_ANNOTATION] !== want)
      gaps.push(`BYOH node ${n.name} still has the old pub-key-hash`);
  const [namespace, name] = [MACHINE_API_NAMESPACE, USER_DATA_SECRET];
  const secret = await api.get(`/api/v1/namespaces/${namespace}/secrets/${name}`);
  const userData = Buffer.from(str(get(secret, "data", "userData")) ?? "", "base64").toString("utf8");
  const keyBody = publicKey.trim().split(/\s+/)[1] ?? "";
  if (!keyBody || !userData.includes(keyBody)) gaps.push(`${namespace}/${name} does not carry the new public key yet`);
  return gaps;
}

export interface WmcoKeyAdoptedInputs {
  publicKey: string;
  kubeconfig?: string;
  context?: string;
  timeoutSeconds: number;
  intervalSeconds: number;
  __provider?: string;
}

async function waitForAdoption(i: WmcoKeyAdoptedInputs): Promise<void> {
  const api = await connectKube(i, 30_000);
  const deadline = Date.now() + i.timeoutSeconds * 1000;
  for (;;) {
    const gaps = await adoptionGaps(api, i.publicKey);
    if (gaps.length === 0) return;
    if (Date.now() + i.intervalSeconds * 1000 > deadline)
      throw new Error(
        `WMCO has not adopted the new key within ${i.timeoutSeconds}s: ${gaps.join("; ")}. The old key stays authorized on the hosts; check the WMCO logs and run pulumi up again`,
      );
    console.error(`key rotation: waiting for WMCO: ${gaps.join("; ")}`);
    await new Promise((r) => setTimeout(r, i.intervalSeconds * 1000));
  }
}

export const wmcoKeyAdoptedProvider: pulumi.dynamic.ResourceProvider = {
  async diff(_id: string, olds: WmcoKeyAdoptedInputs, news: WmcoKeyAdoptedInputs) {
    const changes = (["publicKey", "kubeconfig", "context", "__provider"] as const).some((k) => olds[k] !== news[k]);
    return { changes, replaces: [], deleteBeforeReplace: false };
  },
  async create(inputs: WmcoKeyAdoptedInputs) {
    await waitForAdoption(inputs);
    return { id: "wmco-key-adopted", outs: inputs };
  },
  async update(_id: string, olds: WmcoKeyAdoptedInputs, news: WmcoKeyAdoptedInputs) {
    if (olds.publicKey !== news.publicKey) await waitForAdoption(news);
    return { outs: news };
  },
};
