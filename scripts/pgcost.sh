#!/usr/bin/env bash
# What each request of a lazuli bench scenario costs a node's PostgreSQL in
# WAL and in data-file writes, for docs/scaling.md.
#
#   scripts/pgcost.sh PG_URL METRICS_URL TARGET SCENARIO...
#
# PG_URL is the database the node's --store names, METRICS_URL the node's
# admin /metrics (http://127.0.0.1:10009/metrics by default), TARGET what
# `lazuli bench --target` takes (lazuli:10000). For each scenario the script
# checkpoints, reads pg_stat_wal, pg_stat_bgwriter and the node's
# lazuli_requests_total, runs the scenario (8 at a time, 5 s, no warm-up),
# checkpoints again so that every page the run dirtied is written, and
# prints the differences per request. The requests include the scenario's
# own setup (a read scenario uploads what it reads first). Needs psql
# (Debian's postgresql-client) and a lazuli binary on PATH.
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: $0 PG_URL METRICS_URL TARGET SCENARIO..." >&2; exit 2; }
pg=$1 metrics=$2 target=$3
shift 3

psql_bin=$(command -v psql || ls -d /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -n 1)
sql() { "$psql_bin" "$pg" -At -F ' ' -c "$1"; }

# counters prints: WAL records, WAL bytes, WAL syncs, pages written, requests.
counters() {
  sql "checkpoint" >/dev/null
  sql "select w.wal_records, w.wal_bytes, w.wal_sync,
              b.buffers_checkpoint + b.buffers_clean + b.buffers_backend
       from pg_stat_wal w, pg_stat_bgwriter b" | tr '\n' ' '
  curl -fsS "$metrics" | awk '/^lazuli_requests_total/ { n += $NF } END { printf "%d\n", n }'
}

printf '%-18s %9s %14s %12s %12s %16s\n' scenario requests "WAL B/req" "records/req" "syncs/req" "pages out/req"
for scenario in "$@"; do
  read -r r0 b0 s0 p0 n0 < <(counters)
  lazuli bench --target "$target" --scenarios "$scenario" -c 8 -d 5s --warmup 0s >/dev/null
  read -r r1 b1 s1 p1 n1 < <(counters)
  awk -v sc="$scenario" -v n=$((n1 - n0)) -v r=$((r1 - r0)) -v b=$((b1 - b0)) -v s=$((s1 - s0)) -v p=$((p1 - p0)) \
    'BEGIN { printf "%-18s %9d %14.0f %12.1f %12.2f %16.2f\n", sc, n, b / n, r / n, s / n, p / n }'
done
