import { BootstrapToken } from "../../../providers/vanilla-node";
import { needsRotation, TOKEN_PATTERN } from "../../../providers/vanilla-node/bootstrap-token";
import { serializedProviderOf } from "../../helpers/dynamic-host";
import { validateObject } from "../../helpers/schemas";
import { providerRigPerFile } from "../../helpers/provider-rig";

// The bootstrap token in the real dynamic-provider plugin against the Kubernetes API stand-in: the Secret it creates
// is what the bootstrap authenticator reads (bootstrap-tokens.md), the token leaves only as a secret output.
jest.setTimeout(60_000);

const URN = "urn:pulumi:test::windows-estate::pulumi-nodejs:dynamic:Resource::estate-bootstrap-token";
const { kube, plugin } = providerRigPerFile();
let text: string;
const created: { method: string; body: unknown }[] = [];

beforeAll(async () => {
  kube.route("/api/v1/namespaces/kube-system/secrets", (_n, req) => {
    created.push({ method: req.method, body: req.body });
    return { status: 201, body: req.body };
  });
  text = (await serializedProviderOf(() => new BootstrapToken("t", { ttlHours: 2 }))).text;
});

const b64 = (s: string) => Buffer.from(s, "base64").toString("utf8");

test("creates a kubeadm-usable token Secret; the token appears in no message", async () => {
  const started = Date.now();
  const r = await plugin.create(URN, { ttlHours: 2, kubeconfig: kube.kubeconfig(), __provider: text });
  const s = created[0].body as { metadata: { name: string }; type: string; data: Record<string, string> };
  expect(validateObject(s as never, { closed: true })).toBe("");
  expect(s.type).toBe("bootstrap.kubernetes.io/token");
  const id = b64(s.data["token-id"]);
  expect(s.metadata.name).toBe(`bootstrap-token-${id}`);
  expect(`${id}.${b64(s.data["token-secret"])}`).toMatch(TOKEN_PATTERN);
  expect({
    auth: b64(s.data["usage-bootstrap-authentication"]),
    signing: b64(s.data["usage-bootstrap-signing"]),
    groups: b64(s.data["auth-extra-groups"]),
  }).toEqual({ auth: "true", signing: "true", groups: "system:bootstrappers:kubeadm:default-node-token" });
  const expires = Date.parse(b64(s.data.expiration));
  expect(expires - started).toBeGreaterThan(2 * 3_600_000 - 60_000);
  expect(expires - started).toBeLessThan(2 * 3_600_000 + 60_000);
  // The engine marks it secret (additionalSecretOutputs on the resource); the plugin hands it back plain.
  expect(r.outputs.token).toBe(`${id}.${b64(s.data["token-secret"])}`);
  expect(plugin.stderr.join("")).not.toContain(b64(s.data["token-secret"]));
});

test("rotation: past half its lifetime (or expired, or gone) it is replaced; before that nothing changes", () => {
  const now = Date.parse("2026-11-23T12:00:00Z");
  expect(needsRotation("2026-11-23T13:30:00Z", 2, now)).toBe(false);
  expect(needsRotation("2026-11-23T12:30:00Z", 2, now)).toBe(true);
  expect(needsRotation("1970-01-01T00:00:00Z", 2, now)).toBe(true);
});

test("diff asks for a replacement once the token is old, through the plugin", async () => {
  const old = {
    ttlHours: 2,
    kubeconfig: kube.kubeconfig(),
    __provider: text,
    tokenId: "abcdef",
    token: "abcdef.0123456789abcdef",
    expiration: "2020-01-01T00:00:00Z",
  };
  const d = await plugin.diff(URN, "id", old, { ttlHours: 2, kubeconfig: kube.kubeconfig(), __provider: text });
  expect(d).toMatchObject({ changes: true, deleteBeforeReplace: false });
  expect(d.replaces.length).toBe(1);
  const fresh = { ...old, expiration: new Date(Date.now() + 2 * 3_600_000).toISOString() };
  expect(
    (await plugin.diff(URN, "id", fresh, { ttlHours: 2, kubeconfig: kube.kubeconfig(), __provider: text })).changes,
  ).toBe(false);
});
