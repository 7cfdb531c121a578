#!/usr/bin/env bash
# Azurite in memory, for side-by-side comparisons and `lazuli bench
# --fresh azurite=scripts/azurite.sh`. Installed once from npm into a cache.
#
#   scripts/azurite.sh start [BASEPORT]  blob, queue, table on BASEPORT..+2
#                                         (default 20000); prints the PID
#   scripts/azurite.sh stop               stops the instance it started
set -euo pipefail

version=3.37.0
home=${AZURITE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/lazuli-azurite}
pidfile=$home/pid

start() {
  local base=${1:-20000}
  if [ ! -x "$home/node_modules/.bin/azurite" ]; then
    mkdir -p "$home"
    npm install --silent --no-audit --no-fund --prefix "$home" "azurite@$version" >&2
  fi
  [ -f "$pidfile" ] && stop || true
  "$home/node_modules/.bin/azurite" --inMemoryPersistence --silent --disableTelemetry --skipApiVersionCheck --loose \
    --blobHost 127.0.0.1 --blobPort "$base" --queueHost 127.0.0.1 --queuePort $((base + 1)) \
    --tableHost 127.0.0.1 --tablePort $((base + 2)) >"$home/azurite.log" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 100); do
    (echo >/dev/tcp/127.0.0.1/$((base + 2))) 2>/dev/null && break
    sleep 0.1
  done
  cat "$pidfile"
}

stop() {
  [ -f "$pidfile" ] || return 0
  kill "$(cat "$pidfile")" 2>/dev/null || true
  rm -f "$pidfile"
}

case "${1:-start}" in
start) start "${2:-}" ;;
stop) stop ;;
*) echo "usage: $0 start [BASEPORT] | stop" >&2; exit 2 ;;
esac
