import * as fs from "fs";
import * as path from "path";
import { nodeFilesProvider } from "../../providers/node-files/provider";
import { MAX_FILES, NodeFilesInputs } from "../../providers/node-files/provider";
import { SshConnection } from "../../providers/ssh/types";
import { LabHost, startLabHost } from "../lab/sshd";
import { labConnection } from "../helpers/lab-host";
import { sshCounters } from "../../providers/ssh/limits";

// Fleet-scale and odd-input behaviour of NodeFiles against real sshd on 127.0.0.1.
const FLEET = 100;
let fleet: LabHost[] = [];
beforeAll(async () => {
  // Started in batches: 100 sshd processes at once would only measure the machine's fork rate.
  for (let i = 0; i < FLEET; i += 25)
    fleet.push(...(await Promise.all(Array.from({ length: Math.min(25, FLEET - i) }, () => startLabHost()))));
}, 180_000);
afterAll(async () => {
  await Promise.all(fleet.map((h) => h.stop()));
  fleet = [];
}, 60_000);

const conn = (h: LabHost): SshConnection =>
  labConnection(h, { pathStyle: "posix", deadlineSeconds: 60, commandTimeoutSeconds: 60 });
const openFds = () => fs.readdirSync("/proc/self/fd").length;

test(`${FLEET} hosts converge concurrently without errors, and no connection or descriptor is left open`, async () => {
  const files = { "quay.io/hosts.toml": 'server = "https://quay.io/v2"\n', "mcr.microsoft.com/hosts.toml": "" };
  const before = openFds();
  const results = await Promise.allSettled(
    fleet.map((h) => nodeFilesProvider.create({ connection: conn(h), directory: path.join(h.root, "fleet"), files })),
  );
  const failed = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.message);
  expect(failed).toEqual([]);
  for (const h of fleet)
    expect(fs.readFileSync(path.join(h.root, "fleet", "quay.io/hosts.toml"), "utf8")).toContain("quay.io");
  // Sockets close asynchronously after `end()`; give the event loop a turn per host before counting.
  for (let i = 0; i < 50 && openFds() > before; i++) await new Promise((r) => setTimeout(r, 20));
  expect(openFds()).toBeLessThanOrEqual(before);
}, 180_000);

test("every connection of an sshd killed mid-upload: the run fails at once naming the host (no waiting out its deadline), leaves no partial file, and the next run converges", async () => {
  const h = fleet[0];
  const inputs: NodeFilesInputs = {
    connection: { ...conn(h), deadlineSeconds: 30 },
    directory: path.join(h.root, "restart"),
    files: { "big.bin": "y".repeat(32 << 20), "small.toml": "a = 1\n" },
  };
  const logins = sshCounters().logins;
  const pending = nodeFilesProvider.create(inputs);
  const dir = inputs.directory;
  // Condition, not time: the upload is under way once its temporary file exists (bounded by a deadline).
  const until = Date.now() + 20_000;
  while (!(fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.includes(".tmp-"))) && Date.now() < until)
    await new Promise((r) => setImmediate(r));
  h.killConnections();
  // A lost connection is not a refused one: it fails at once, counted rather than timed: one login (the listener
  // survives, so a retry would log in again) and the loss named, not the 60 s command timeout run out.
  const failure = await pending.then(
    () => new Error("converged"),
    (e: Error) => e,
  );
  expect(failure.message).toMatch(/127\.0\.0\.1/);
  expect(failure.message).not.toMatch(/timed out after/);
  expect(sshCounters().logins - logins).toBe(1);
  expect(fs.readdirSync(dir).filter((f) => f === "big.bin" && fs.statSync(path.join(dir, f)).size !== 8 << 20)).toEqual(
    [],
  );
  await nodeFilesProvider.create({ ...inputs, connection: conn(h) });
  expect(fs.readdirSync(dir).sort()).toEqual(["big.bin", "small.toml"]);
}, 60_000);

test("a 10 MB file converges and reads back by checksum", async () => {
  const h = fleet[1];
  const big = "z".repeat(10 * 1024 * 1024);
  const r = await nodeFilesProvider.create({
    connection: conn(h),
    directory: path.join(h.root, "ten"),
    files: { "big.txt": big },
  });
  expect(fs.statSync(path.join(h.root, "ten", "big.txt")).size).toBe(big.length);
  const read = await nodeFilesProvider.read!("id", r.outs);
  expect(read.props?.checksums).toEqual(r.outs.checksums);
}, 60_000);

test("10,000 files and text that is not valid Unicode are refused clearly, before connecting", async () => {
  const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}.toml`, ""]));
  const r = await nodeFilesProvider.check!({} as NodeFilesInputs, {
    connection: conn(fleet[2]),
    directory: "/srv/x",
    files: many,
  });
  expect(r.failures?.[0]).toMatchObject({
    property: "files",
    reason: `10000 files is more than ${MAX_FILES} per resource; split them over several NodeFiles resources`,
  });
  const bad = await nodeFilesProvider.check!({} as NodeFilesInputs, {
    connection: conn(fleet[2]),
    directory: "/srv/x",
    files: { "a.toml": "ok \ud800 no" },
  });
  expect(bad.failures?.[0]?.reason).toMatch(/not valid Unicode text/);
});

test("non-ASCII text and odd file names round-trip exactly", async () => {
  const h = fleet[3];
  const files = {
    "ünïcode dir/hosts.toml": '# Größe ✓ 日本\nserver = "https://x/v2"\n',
    "with space.toml": "a\r\nb\r\n",
  };
  const r = await nodeFilesProvider.create({ connection: conn(h), directory: path.join(h.root, "odd"), files });
  expect(fs.readFileSync(path.join(h.root, "odd", "ünïcode dir/hosts.toml"), "utf8")).toBe(
    files["ünïcode dir/hosts.toml"],
  );
  const read = await nodeFilesProvider.read!("id", r.outs);
  expect(read.props?.checksums).toEqual(r.outs.checksums);
});
