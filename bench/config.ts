// The bench's settings, read once from the environment (the variables are listed in run.ts), and
// the constants its workloads share.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SystemName } from './common.js';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(HERE, '..');
export const QUICK = process.env.BENCH_QUICK === '1';
export const N = Number(process.env.BENCH_JOBS ?? (QUICK ? 2_000 : 20_000));
export const REPS = Number(process.env.BENCH_REPS ?? (QUICK ? 1 : 3));
export const BACKLOG = Number(process.env.BENCH_BACKLOG ?? (QUICK ? 20_000 : 1_000_000));
// p99 of 300 samples was the 3rd-worst sample, and 20 warm-up jobs left the first few hundred
// samples in JIT warm-up (their p99 was 2-4x the last quarter's): 2,000 samples after 200.
export const LATENCY_JOBS = Number(process.env.BENCH_LATENCY_JOBS ?? (QUICK ? 100 : 2_000));
export const LATENCY_WARMUP = QUICK ? 20 : 200;
/** Workload 9: jobs through one worker while its heap is sampled, and how often (after GC). */
export const HEAP_JOBS = Number(process.env.BENCH_HEAP_JOBS ?? (QUICK ? 200_000 : 2_000_000));
export const HEAP_EVERY = Number(process.env.BENCH_HEAP_EVERY ?? (QUICK ? 25_000 : 250_000));
/** Workload 9 feeds the queue in batches, keeping at most this many waiting (Redis stays small). */
export const HEAP_BACKLOG = 20_000;
export const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
export const PROFILE = process.argv.includes('--profile');
export const WRITE =
  process.env.BENCH_WRITE === '1' || (!QUICK && !ONLY && !PROFILE && process.env.BENCH_WRITE !== '0');
export const SYSTEMS: SystemName[] = ['machinist', 'bullmq'];
export const ENQ_IN_FLIGHT = 100;
export const BULK = 1_000;
/** Workload 8's control: the backlog's jobs queued here instead, where no worker looks. */
export const OTHER_QUEUE = 'bench-other';
/** Workload 7: fan-out flows one after another per repetition. */
export const FLOWS = Number(process.env.BENCH_FLOWS ?? (QUICK ? 3 : 5));

/** Redis persistence: `off` (none), `on` (appendonly yes, appendfsync everysec), or `both`. */
export type AofMode = 'off' | 'on';
const aof = process.env.BENCH_AOF ?? 'both';
if (!['off', 'on', 'both'].includes(aof)) throw new Error(`BENCH_AOF=${aof}: off, on or both`);
/** The persistence modes of this run, in order: every workload runs once per mode, on its own redis-server. */
export const AOF_MODES: AofMode[] = aof === 'both' ? ['off', 'on'] : [aof as AofMode];
/** How RESULTS.md and the tables name a mode. */
export const AOF_LABEL: Record<AofMode, string> = {
  off: 'no persistence',
  on: 'AOF on (appendonly yes, appendfsync everysec)',
};
/** redis-server options of a mode (its --dir is a temp folder removed when it stops). */
export function aofArgs(mode: AofMode): string[] {
  return mode === 'on' ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : [];
}

const sizes = (v: string | undefined, dflt: number[]) => (v ? v.split(',').map(Number) : dflt);
/** Workload 15 (issue 25): pipelines parked on an `after` timer, all due at once. */
export const PARKED_SIZES = sizes(process.env.BENCH_PARKED, QUICK ? [2_000] : [10_000, 100_000]);
/** Workload 15: worker processes (c=100 each) the due jobs are resumed by, one run per count. */
export const PARKED_PROCS = sizes(process.env.BENCH_PARKED_PROCS, [1, 4]);
/**
 * Workload 15's early lease (SupervisorOptions.leadMs, holdMax; 0: off, as before round nine):
 * 5 s, ~2.5x what 100k due at once took to hold at ~20k/s (each held job costs Redis a due
 * claim's work), and a budget past a process's share of 100k over 4 processes.
 */
export const PARKED_LEAD_MS = Number(process.env.BENCH_PARKED_LEAD ?? 5_000);
export const PARKED_HOLD = Number(process.env.BENCH_PARKED_HOLD ?? 30_000);
/** Workload 15: a folder for each Machinist worker's CPU profile, read over the drain (unset: none). */
export const PARKED_PROFILE_DIR = process.env.BENCH_PARKED_PROFILE;
/** Workload 16 (issue 25): cost growth, jobs queued and then finished. 1,000,000 is a setting. */
export const GROWTH_SIZES = sizes(process.env.BENCH_GROWTH, QUICK ? [2_000, 20_000] : [10_000, 100_000]);
/** Workload 17 (issue 25): one fan-out flow of this many children. */
export const FAN_BIG = Number(process.env.BENCH_FAN_BIG ?? (QUICK ? 10_000 : 100_000));
