#!/usr/bin/env bash
# A throwaway PostgreSQL on 127.0.0.1 (or ADDRESS), for the postgres engine's
# tests, CI and benchmarks. Debian's postgresql package is installed when
# missing.
#
#   scripts/postgres.sh start [DIR] [PORT] [ADDRESS]  new cluster in DIR,
#                                                     listening on ADDRESS;
#                                                     prints its URL
#   scripts/postgres.sh stop [DIR]                    fast shutdown of the
#                                                     cluster in DIR
#
# DIR defaults to ${TMPDIR:-/tmp}/lazuli-pg, PORT to 54329 and ADDRESS to
# 127.0.0.1. Anyone who reaches ADDRESS connects as the superuser without a
# password: give another address only where no other machine reaches it,
# such as the network-namespace tests' host address (internal/check/netns).
# Run as root, the server runs as user postgres, which must be able to reach
# DIR.
set -euo pipefail

action=${1:-start}
dir=${2:-${TMPDIR:-/tmp}/lazuli-pg}
port=${3:-54329}
address=${4:-127.0.0.1}
# An IPv6 address is bracketed in a URL (RFC 3986 section 3.2.2).
url_host=$address
[[ "$address" != *:* ]] || url_host="[$address]"

newest_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

start() {
  if [ -z "$(newest_bin)" ]; then
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >&2
  fi
  local bin run_as=()
  bin=$(newest_bin)
  [ -f "$dir/pid" ] && stop || true
  rm -rf "$dir"
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$dir"
    run_as=(runuser -u postgres --)
    if ! runuser -u postgres -- test -x "$dir"; then
      echo "postgres.sh: user postgres cannot reach $dir; choose a directory whose parents it can traverse" >&2
      exit 1
    fi
  fi
  "${run_as[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync \
    >"$dir/initdb.log" 2>&1
  # initdb -A trust admits loopback's clients; on another ADDRESS its
  # clients come from their own addresses (a namespace's end of its link).
  echo "host all all all trust" >>"$dir/data/pg_hba.conf"
  "${run_as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-p $port -k $dir -c listen_addresses=$address" start >/dev/null
  head -n 1 "$dir/data/postmaster.pid" >"$dir/pid"
  "$bin/pg_isready" -q -h "$address" -p "$port"
  echo "postgres://postgres@$url_host:$port/postgres?sslmode=disable"
}

stop() {
  [ -f "$dir/pid" ] || return 0
  local pid
  pid=$(cat "$dir/pid")
  kill -INT "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  rm -f "$dir/pid"
}

case "$action" in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start [DIR] [PORT] [ADDRESS] | stop [DIR]" >&2; exit 2 ;;
esac
