#!/usr/bin/env bash
# The SSH test lab needs OpenSSH's sshd and sftp-server. Install them when missing and we can (root with apt);
# otherwise say exactly what to run. The tests never skip silently.
set -euo pipefail
have() { command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ]; }
sftp_ok() { [ -x /usr/lib/openssh/sftp-server ] || [ -x /usr/libexec/openssh/sftp-server ] || [ -x /usr/libexec/sftp-server ]; }
if have && sftp_ok; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing openssh-server for the SSH test lab..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq openssh-server >/dev/null
  # The package may start a system sshd on port 22; the lab runs its own on free ports and needs none.
  if have && sftp_ok; then exit 0; fi
fi
echo "the SSH test lab needs OpenSSH's sshd: run  sudo apt-get install -y openssh-server  and run the tests again" >&2
exit 1
