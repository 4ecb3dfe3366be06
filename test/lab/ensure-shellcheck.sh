#!/usr/bin/env bash
# actionlint checks every workflow `run:` script with shellcheck when shellcheck is on PATH; when it is not, the rule
# is disabled with a line in -verbose output only (actionlint linter.go; docs/checks.md "shellcheck integration"). The
# e2e suite's actionlint test needs it there: install it when we can (root with apt), otherwise say exactly what to
# run. Never skipped silently.
set -euo pipefail
if command -v shellcheck >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing shellcheck for actionlint..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq shellcheck >/dev/null
fi
if ! command -v shellcheck >/dev/null 2>&1; then
  echo "actionlint checks workflow scripts with shellcheck: run  sudo apt-get install -y shellcheck  and run the tests again" >&2
  exit 1
fi
exit 0
