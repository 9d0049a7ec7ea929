#!/bin/bash
# Runs bench/probes/queueStructure.ts with redis-server under callgrind (cache simulation) and
# prints per-job instruction and simulated cache-miss counts, for a sorted set and a list, with an
# empty queue and with a backlog. Counts, unlike times, repeat on a busy or shared machine.
#
#   bash bench/probes/queueStructure.sh [BACKLOG]      (default 1000000; about 5 minutes)
#
# Each case: fill natively, SAVE, load the RDB under callgrind with instrumentation on (so the
# simulated cache holds what loading touched last, as a live server's would), zero the counters,
# claim and finish 20,000 jobs, dump. An RDB load allocates the job hashes in hash-table order,
# not enqueue order, so misses on the job hashes are higher than a live fill's would be; the
# sorted set and the list are loaded in queue order.
set -euo pipefail
cd "$(dirname "$0")/../.."
BACKLOG=${1:-1000000}
OUT=${TMPDIR:-/tmp}/machinist-queue-structure
rm -rf "$OUT"; mkdir -p "$OUT"
port=$((20000 + RANDOM % 20000))
for kind in z l; do
  for backlog in 0 "$BACKLOG"; do
    dir=$OUT/$kind-$backlog; mkdir -p "$dir"
    redis-server --port $port --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize yes --logfile /dev/null
    until redis-cli -p $port ping 2>/dev/null | grep -q PONG; do sleep 0.2; done
    node --import tsx bench/probes/queueStructure.ts $port fill $kind "$backlog"
    redis-cli -p $port save >/dev/null; redis-cli -p $port shutdown nosave >/dev/null || true; sleep 0.5
    valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$dir/cg.out" \
      redis-server --port $port --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" >"$dir/vg.log" 2>&1 &
    vpid=$!
    until redis-cli -p $port ping 2>/dev/null | grep -q PONG; do sleep 1; done
    until redis-cli -p $port info persistence | grep -q "loading:0"; do sleep 1; done
    callgrind_control -z $vpid >/dev/null 2>&1
    node --import tsx bench/probes/queueStructure.ts $port run $kind >/dev/null
    callgrind_control -d $vpid >/dev/null 2>&1
    redis-cli -p $port shutdown nosave >/dev/null || true
    wait $vpid || true
    # The dump taken after the run is cg.out.1; per job = its totals / 20,000.
    awk -v label="$([ $kind = z ] && echo 'sorted set' || echo list), backlog $backlog" '
      /^events:/ { for (i = 2; i <= NF; i++) ev[i] = $i }
      /^(summary|totals):/ { printf "%-26s", label; for (i = 2; i <= NF; i++) if (ev[i] ~ /^(Ir|D1mr|D1mw|DLmr|DLmw)$/) printf "  %s %.1f", ev[i], $i / 20000; print ""; exit }
    ' "$dir/cg.out.1"
  done
done
