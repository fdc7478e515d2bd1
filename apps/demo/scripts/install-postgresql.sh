#!/bin/sh
# Installs Debian's PostgreSQL server programs for the demo's two-instance tests, only when
# they are missing. The tests start their own throwaway server (initdb + pg_ctl on 127.0.0.1);
# nothing here starts one. Safe to run again: it does nothing once initdb exists.
set -eu

if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "postgresql already installed: $(ls -d /usr/lib/postgresql/*/bin | tail -n 1)"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends postgresql
# Debian starts a cluster of its own on install; the tests do not use it.
$SUDO service postgresql stop >/dev/null 2>&1 || true

ls -d /usr/lib/postgresql/*/bin | tail -n 1
