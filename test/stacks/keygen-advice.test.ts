import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parsePrivateKey } from "../../stacks/key";

// One way to make the WMCO key, said the same everywhere a user reads it: the README, the docs, every example stack's
// comment and the program's own messages. Ed25519: WMCO reads the key with golang.org/x/crypto/ssh ParsePrivateKey,
// which takes it, and Windows' OpenSSH accepts it; the key it makes is one the program accepts (checked below).

const ROOT = path.resolve(__dirname, "..", "..");
const ADVICE = "ssh-keygen -t ed25519 -N '' -f ~/.ssh/wmco";

const places = [
  "README.md",
  ...fs.readdirSync(path.join(ROOT, "docs")).map((f) => path.join("docs", f)),
  ...fs.readdirSync(path.join(ROOT, "stacks", "examples")).map((f) => path.join("stacks", "examples", f)),
  path.join("stacks", "key.ts"),
].filter((f) => /\.(md|yaml|ts)$/.test(f));

test("every ssh-keygen that makes a key, in the docs, the examples and the messages, is the one advice", () => {
  const found = places.flatMap((f) =>
    [...fs.readFileSync(path.join(ROOT, f), "utf8").matchAll(/ssh-keygen -t [^`)\n#]*/g)].map(
      (m) => `${f}: ${m[0].trim()}`,
    ),
  );
  expect(found.length).toBeGreaterThanOrEqual(10); // the README, getting started, gitops, nine examples, the hint
  expect(found.filter((l) => !l.endsWith(`: ${ADVICE}`))).toEqual([]);
});

test("the key it makes is one the program accepts (as WMCO will)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keygen-advice-"));
  try {
    const file = path.join(dir, "wmco");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", file]);
    expect(parsePrivateKey(fs.readFileSync(file, "utf8")).algorithm).toBe("ed25519");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
