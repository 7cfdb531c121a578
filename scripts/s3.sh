#!/usr/bin/env bash
# A throwaway S3 server on 127.0.0.1 (or ADDRESS), for the S3 extent
# engine's tests, CI and trying --extents s3://... by hand: SeaweedFS's
# master, volume server, filer and S3 gateway in one process. Its weed
# binary is built from the Go module proxy on first use (a few minutes) and
# kept with the other pinned tools under
# ${XDG_CACHE_HOME:-$HOME/.cache}/lazuli-tools/$GOTOOLCHAIN.
# Building it took 50 minutes of a busy 2-core machine (13 minutes of CPU).
#
#   scripts/s3.sh start [DIR] [PORT] [ADDRESS]  new server in DIR, S3 on
#                                               ADDRESS:PORT; prints the
#                                               variables the tests read, as
#                                               export lines:
#                                               eval "$(scripts/s3.sh start)"
#   scripts/s3.sh stop [DIR]                    stops the server in DIR
#
# DIR defaults to ${TMPDIR:-/tmp}/lazuli-s3, PORT to 8333 and ADDRESS to
# 127.0.0.1. The master, volume server and filer listen on PORT+1 to PORT+3,
# and each server's gRPC on its port + 10000, so PORT must be below 55000;
# all of them on ADDRESS only. The server accepts the fixed test credentials
# printed, so give another address only where no other machine reaches it,
# such as the network-namespace tests' host address (internal/check/netns).
set -euo pipefail

action=${1:-start}
dir=${2:-${TMPDIR:-/tmp}/lazuli-s3}
port=${3:-8333}
address=${4:-127.0.0.1}
# An IPv6 address is bracketed in host:port (RFC 3986 section 3.2.2).
endpoint_host=$address
[[ "$address" != *:* ]] || endpoint_host="[$address]"

export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3}
weed_module=github.com/seaweedfs/seaweedfs
weed_version=v0.0.0-20261109003541-7506e5f91cd6
tools=${XDG_CACHE_HOME:-$HOME/.cache}/lazuli-tools/$GOTOOLCHAIN
weed=$tools/weed-$weed_version
access_key=lazuli-test
secret_key=lazuli-test-secret
bucket=lazuli-test

# build_weed builds weed at the pinned version. go install refuses the
# module (its go.mod has replace directives), so it is built inside the
# module's own directory in the module cache, with the module as main; the
# binary then reports no version, so its name carries it.
build_weed() {
  [ -x "$weed" ] && return
  local src
  src=$(go mod download -json "$weed_module@$weed_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  mkdir -p "$tools"
  (cd "$src" && go build -o "$weed.tmp" ./weed)
  mv "$weed.tmp" "$weed"
}

# wait_ready waits until the S3 gateway answers a request for the bucket
# listing (any HTTP status: an unsigned request is refused once it is up).
wait_ready() {
  for _ in $(seq 1 600); do
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      echo "s3.sh: weed exited; see $dir/weed.log" >&2
      tail -n 20 "$dir/weed.log" >&2
      return 1
    fi
    if { exec 3<>"/dev/tcp/$address/$port"; } 2>/dev/null; then
      printf 'GET / HTTP/1.0\r\nHost: %s\r\n\r\n' "$endpoint_host" >&3
      local status
      status=$(head -n 1 <&3 || true)
      exec 3>&-
      case "$status" in HTTP/*" 403 "* | HTTP/*" 200 "*) return 0 ;; esac
    fi
    sleep 0.1
  done
  echo "s3.sh: the S3 gateway did not answer within 60 s; see $dir/weed.log" >&2
  return 1
}

start() {
  if [ "$port" -ge 55000 ]; then
    echo "s3.sh: PORT must be below 55000 (gRPC listens on port + 10000)" >&2
    exit 2
  fi
  build_weed >&2
  [ -f "$dir/pid" ] && stop || true
  rm -rf "$dir"
  mkdir -p "$dir/data"
  AWS_ACCESS_KEY_ID=$access_key AWS_SECRET_ACCESS_KEY=$secret_key \
    setsid "$weed" server -ip="$address" -ip.bind="$address" -dir="$dir/data" \
    -master.port=$((port + 1)) -volume.port=$((port + 2)) -filer=true -filer.port=$((port + 3)) \
    -s3 -s3.port="$port" -master.volumeSizeLimitMB=64 -volume.max=0 \
    >"$dir/weed.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  wait_ready
  echo "export LAZULI_TEST_S3='s3://$bucket?endpoint=$endpoint_host:$port&secure=false'"
  echo "export AWS_ACCESS_KEY_ID=$access_key"
  echo "export AWS_SECRET_ACCESS_KEY=$secret_key"
}

stop() {
  [ -f "$dir/pid" ] || return 0
  local pid
  pid=$(cat "$dir/pid")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
}

case "$action" in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start [DIR] [PORT] [ADDRESS] | stop [DIR]" >&2; exit 2 ;;
esac
