#!/usr/bin/env node
// An SFTP subsystem that hangs: it answers the client's INIT with version 3 (draft-ietf-secsh-filexfer-02 §4:
// uint32 length, byte SSH_FXP_VERSION = 2, uint32 version) and then reads every request without ever answering, the
// way a wedged server on a busy host does. Tests use it to prove that each SFTP step has a timeout.
//   usage: sftp-mute.js [--silent]   (--silent: not even the version, so opening SFTP itself hangs; any other
//   argument, such as the tests' --after-version, is the default: the version, then nothing)
const silent = process.argv.includes("--silent");
let answered = silent;
process.stdin.on("data", () => {
  if (answered) return;
  answered = true;
  process.stdout.write(Buffer.from([0, 0, 0, 5, 2, 0, 0, 0, 3]));
});
