#!/bin/bash
# Runs bench/probes/scriptsMode.ts twice: with redis-server under callgrind (instructions per
# no-op job and per script call, FCALL against EVALSHA, at concurrency 1 and 100), then on a
# plain redis-server (INFO commandstats usec per call). Counts, unlike times, repeat on a busy
# or shared machine.
#
#   bash bench/probes/scriptsMode.sh [JOBS] [ROUNDS]      (default 2000 and 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
JOBS=${1:-2000}
ROUNDS=${2:-3}
OUT=${TMPDIR:-/tmp}/machinist-scripts-mode
rm -rf "$OUT"; mkdir -p "$OUT"
port=$((20000 + RANDOM % 20000))
valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" \
  redis-server --port $port --bind 127.0.0.1 --save "" --appendonly no --dir "$OUT" >"$OUT/vg.log" 2>&1 &
vpid=$!
until redis-cli -p $port ping 2>/dev/null | grep -q PONG; do sleep 1; done
echo "## redis-server under callgrind"
node --import tsx bench/probes/scriptsMode.ts --jobs "$JOBS" --rounds "$ROUNDS" --port $port --callgrind "$vpid:$OUT/cg.out"
redis-cli -p $port shutdown nosave >/dev/null 2>&1 || true
wait $vpid || true
echo "## redis-server (INFO commandstats)"
node --import tsx bench/probes/scriptsMode.ts --jobs "$JOBS" --rounds "$ROUNDS"
