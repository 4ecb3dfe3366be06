#!/usr/bin/env node
// The SFTP subsystem of a lab Windows host: OpenSSH's own sftp-server, with Windows drive paths moved under the host's
// folder. The program writes `C:\k\…` as Win32-OpenSSH's sftp-server wants it, `/C:/k/…` (providers/ssh/paths.ts
// toSftpPath); on the lab's Linux machine that would be a `/C:` folder at the root shared by every host, so each
// request's drive paths become `<root>/C:/k/…` and every host has a C: drive of its own. Nothing else changes: the
// replies pass through untouched, and POSIX paths (the tests that use them) are left as they are.
//   usage: sftp-drive.js <sftp-server> <root>
// Packets as SFTP version 3 frames them (draft-ietf-secsh-filexfer-02 §3, §6; OpenSSH PROTOCOL for the
// @openssh.com extensions): uint32 length, byte type, uint32 request id, then the request's fields.
const { spawn } = require("child_process");

const [server, root] = process.argv.slice(2);
if (!server || !root) {
  process.stderr.write("usage: sftp-drive.js <sftp-server> <root>\n");
  process.exit(2);
}

// Request type → how many leading string fields are paths (OPEN, LSTAT, SETSTAT, OPENDIR, REMOVE, MKDIR, RMDIR,
// REALPATH, STAT, RENAME, READLINK, SYMLINK). The others carry handles or nothing to move.
const PATHS = { 3: 1, 7: 1, 9: 1, 11: 1, 13: 1, 14: 1, 15: 1, 16: 1, 17: 1, 18: 2, 19: 1, 20: 2 };
// SSH_FXP_EXTENDED (200): the extension's name, then its paths.
const EXTENDED_PATHS = {
  "posix-rename@openssh.com": 2,
  "hardlink@openssh.com": 2,
  "statvfs@openssh.com": 1,
  "lsetstat@openssh.com": 1,
  "expand-path@openssh.com": 1,
};
const DRIVE = /^\/[A-Za-z]:(\/|$)/;

function moved(p) {
  return DRIVE.test(p) ? root + p : p;
}

/** The packet body (type onwards) with its drive paths moved. */
function rewrite(body) {
  const type = body[0];
  if (type !== 200 && !PATHS[type]) return body;
  const parts = [body.subarray(0, 5)];
  let at = 5;
  const readString = () => {
    const n = body.readUInt32BE(at);
    const s = body.subarray(at + 4, at + 4 + n);
    at += 4 + n;
    return s;
  };
  const lengthPrefixed = (b) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    return Buffer.concat([len, b]);
  };
  let count = PATHS[type] ?? 0;
  if (type === 200) {
    const name = readString();
    parts.push(lengthPrefixed(name));
    count = EXTENDED_PATHS[name.toString("utf8")] ?? 0;
  }
  for (let i = 0; i < count; i++) parts.push(lengthPrefixed(Buffer.from(moved(readString().toString("utf8")), "utf8")));
  parts.push(body.subarray(at));
  return Buffer.concat(parts);
}

const child = spawn(server, [], { stdio: ["pipe", "inherit", "inherit"] });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
let pending = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4) {
    const n = pending.readUInt32BE(0);
    if (pending.length < 4 + n) break;
    const body = rewrite(pending.subarray(4, 4 + n));
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length);
    child.stdin.write(Buffer.concat([len, body]));
    pending = pending.subarray(4 + n);
  }
});
process.stdin.on("end", () => child.stdin.end());
