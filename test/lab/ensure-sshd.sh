#!/usr/bin/env bash
# The SSH test lab needs OpenSSH's sshd and sftp-server, and some lab hosts listen on port 22 of their own loopback
# address (WMCO only ever connects to 22). Install what is missing when we can (root with apt); otherwise say exactly
# what to run. The tests never skip silently.
set -euo pipefail
have() { command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ]; }
sftp_ok() { [ -x /usr/lib/openssh/sftp-server ] || [ -x /usr/libexec/openssh/sftp-server ] || [ -x /usr/libexec/sftp-server ]; }
port22_ok() {
  [ "$(id -u)" = "0" ] && return 0
  local start
  start=$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start 2>/dev/null || echo 1024)
  [ "$start" -le 22 ]
}
if ! (have && sftp_ok); then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing openssh-server for the SSH test lab..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq openssh-server >/dev/null
    # The package may start a system sshd on port 22 of every address; the lab's own hosts would then not start.
    if command -v service >/dev/null 2>&1; then service ssh stop >/dev/null 2>&1 || true; fi
  fi
fi
if ! (have && sftp_ok); then
  echo "the SSH test lab needs OpenSSH's sshd: run  sudo apt-get install -y openssh-server  and run the tests again" >&2
  exit 1
fi
if ! port22_ok; then
  echo "the SSH test lab runs sshd on port 22 of 127.0.0.21/22 as you: run  sudo sysctl -w net.ipv4.ip_unprivileged_port_start=22  (or run the tests as root)" >&2
  exit 1
fi
if (exec 3<>/dev/tcp/127.0.0.21/22) 2>/dev/null; then
  echo "something already listens on port 22 of 127.0.0.21 (a system sshd on every address?); the lab's hosts need it: stop it (e.g. sudo service ssh stop)" >&2
  exit 1
fi
exit 0
