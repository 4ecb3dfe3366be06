import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { bootstrapCredential } from "../../../components/node-access/credentials";

// Which credential a host's first connection gets (BYOH hosts, vanilla nodes): its key file, else its password
// secret, else the stack's own key; always a secret Output. (The real CLI's plan shows these inputs only as
// "[secret]", even with --show-secrets, so the choice is checked here under the SDK's mock runtime.)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "credentials-"));
const keyFile = path.join(dir, "bootstrap.pem");
const STACK_KEY = "-----BEGIN RSA PRIVATE KEY-----\nstack-key\n-----END RSA PRIVATE KEY-----\n";

beforeAll(async () => {
  fs.writeFileSync(keyFile, "bootstrap-key-file-content\n", { mode: 0o600 });
  await pulumi.runtime.setMocks(
    { newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs },
    "windows-estate",
    "test",
    true,
  );
  pulumi.runtime.setAllConfig({ "windows-estate:byohPassword": "hunter2-bootstrap" }, ["windows-estate:byohPassword"]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply((v) => (resolve(v), v)));
const secretOf = <T>(o: pulumi.Output<T>) => pulumi.isSecret(o);

test("no bootstrap: the stack's key", async () => {
  const c = bootstrapCredential(undefined, STACK_KEY, "byoh[0]");
  expect(await valueOf(c)).toEqual({ privateKey: STACK_KEY });
  expect(await secretOf(c)).toBe(true);
});

test("a password secret: that password, and no key", async () => {
  const c = bootstrapCredential({ passwordSecret: "byohPassword" }, STACK_KEY, "byoh[1]");
  expect(await valueOf(c)).toEqual({ password: "hunter2-bootstrap" });
  expect(await secretOf(c)).toBe(true);
});

test("a key file: its content, and no password", async () => {
  const c = bootstrapCredential({ privateKeyPath: keyFile }, STACK_KEY, "byoh[2]");
  expect(await valueOf(c)).toEqual({ privateKey: "bootstrap-key-file-content\n" });
  expect(await secretOf(c)).toBe(true);
});
