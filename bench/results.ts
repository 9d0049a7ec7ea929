// The figures of a run: one row per workload and metric with each system's samples, and the
// tables printed and written to bench/RESULTS.md (results, the targets of issue 5, Redis commands).

import { FAN_CHILDREN, type SystemName } from './common.js';
import { flowMetrics, THROTTLE_WANT } from './flowMetrics.js';
import { BACKLOG, N, SYSTEMS, type AofMode } from './config.js';
import type { CommandStat } from './redis.js';

export interface Row {
  workload: string;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  samples: Record<SystemName, number[]>;
  pending?: boolean;
  /** The Redis persistence the row was measured with (BENCH_AOF): each mode has its own rows. */
  aof: AofMode;
}

export const rows: Row[] = [];
type Breakdown = Record<SystemName, Map<string, CommandStat>[]>;
const breakdowns: Record<AofMode, Breakdown> = {
  off: { machinist: [], bullmq: [] },
  on: { machinist: [], bullmq: [] },
};

/** The persistence mode rows are recorded in (run.ts sets it before each mode's workloads), and
 * the one the tables show (resultsBody shows each mode in turn). */
let recording: AofMode = 'off';
let viewing: AofMode = 'off';
export function recordMode(mode: AofMode): void {
  recording = mode;
}
export function viewMode(mode: AofMode): void {
  viewing = mode;
}
/** The modes some row was recorded in, in order. */
export function modesSeen(): AofMode[] {
  return (['off', 'on'] as const).filter((m) => rows.some((r) => r.aof === m));
}

/** Workload 4's per-command figures of the mode being recorded. */
export function cmdBreakdown(system: SystemName): Map<string, CommandStat>[] {
  return breakdowns[recording][system];
}

export function row(workload: string, metric: string, unit: string, better: 'higher' | 'lower'): Row {
  let r = rows.find((x) => x.workload === workload && x.metric === metric && x.aof === recording);
  if (!r)
    rows.push(
      (r = { workload, metric, unit, better, aof: recording, samples: { machinist: [], bullmq: [] } }),
    );
  return r;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export function fmt(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '-';
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

function stat(xs: number[]): { med: number; min: number; max: number } | undefined {
  if (xs.length === 0) return undefined;
  return { med: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

function cell(xs: number[]): string {
  const s = stat(xs);
  if (!s) return '-';
  return xs.length > 1 ? `${fmt(s.med)} (${fmt(s.min)}–${fmt(s.max)})` : fmt(s.med);
}

function ratioOf(r: Row): number | undefined {
  const m = stat(r.samples.machinist);
  const b = stat(r.samples.bullmq);
  return m && b && b.med !== 0 ? m.med / b.med : undefined;
}

export function table(): string {
  const lines = [
    '| # | workload / metric | unit | Machinist median (min–max) | BullMQ median (min–max) | M/B | better |',
    '|---|---|---|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    if (r.aof !== viewing) continue;
    if (r.pending) {
      lines.push(`| ${r.workload} | ${r.metric} | - | pending | pending | - | - |`);
      continue;
    }
    const ratio = ratioOf(r);
    lines.push(
      `| ${r.workload} | ${r.metric} | ${r.unit} | ${cell(r.samples.machinist)} | ${cell(r.samples.bullmq)} | ${ratio === undefined ? '-' : ratio.toFixed(2) + 'x'} | ${r.better} |`,
    );
  }
  return lines.join('\n');
}

function find(metric: string): Row | undefined {
  return rows.find((r) => r.metric === metric && r.aof === viewing);
}

export function targets(): string {
  const out: string[] = ['| target | figure | verdict |', '|---|---|---|'];
  const ratioTarget = (name: string, metric: string, want: number, dir: '>=' | '<=') => {
    const r = find(metric);
    const x = r ? ratioOf(r) : undefined;
    if (x === undefined) {
      out.push(`| ${name} | not measured | - |`);
      return;
    }
    const ok = dir === '>=' ? x >= want : x <= want;
    const by = dir === '>=' ? ((want - x) / want) * 100 : ((x - want) / want) * 100;
    out.push(
      `| ${name} | ${x.toFixed(2)}x (want ${dir} ${want}x) | ${ok ? 'met' : `**missed** by ${by.toFixed(0)}%`} |`,
    );
  };
  const absTarget = (name: string, metric: string, want: number, unit: string) => {
    const r = find(metric);
    const s = r ? stat(r.samples.machinist) : undefined;
    if (!s) {
      out.push(`| ${name} | not measured | - |`);
      return;
    }
    const ok = s.med <= want;
    out.push(
      `| ${name} | ${fmt(s.med)} ${unit} (want <= ${want}) | ${ok ? 'met' : `**missed** by ${(((s.med - want) / want) * 100).toFixed(0)}%`} |`,
    );
  };
  ratioTarget('throughput c=100, 1 worker process: >= 1.5x', 'throughput c=100, 1 proc', 1.5, '>=');
  ratioTarget('throughput c=10, 1 worker process: >= 1.25x', 'throughput c=10, 1 proc', 1.25, '>=');
  {
    const a = find('throughput c=100, 1 proc');
    const b = find('throughput c=100, 2 procs');
    const ra = a ? ratioOf(a) : undefined;
    const rb = b ? ratioOf(b) : undefined;
    if (ra === undefined || rb === undefined)
      out.push('| best process count (1 or 2, same for both): >= 2x | not measured | - |');
    else {
      const best = Math.max(ra, rb);
      const which = rb > ra ? '2 procs' : '1 proc';
      out.push(
        `| best process count (1 or 2, same for both): >= 2x | ${best.toFixed(2)}x at ${which} | ${best >= 2 ? 'met' : `**missed** by ${(((2 - best) / 2) * 100).toFixed(0)}%`} |`,
      );
    }
  }
  ratioTarget('worker CPU per job below BullMQ', 'worker CPU per job (c=100)', 1, '<=');
  ratioTarget('enqueueMany >= 3x addBulk', 'enqueueMany, batches of 1,000', 3, '>=');
  ratioTarget('single enqueue >= 1.5x add', 'enqueue, 100 in flight', 1.5, '>=');
  ratioTarget('latency p50 no worse', 'latency p50', 1, '<=');
  ratioTarget('latency p99 no worse', 'latency p99', 1, '<=');
  absTarget('Redis commands per job <= 12', 'Redis commands per job (enqueue+claim+finish)', 12, 'commands');
  absTarget('Redis CPU per job <= 25 us', 'Redis CPU per job', 25, 'us');
  ratioTarget('Redis memory per kept finished job <= BullMQ', 'Redis memory per finished job kept', 1, '<=');
  {
    const r = find('backlog/empty throughput');
    const s = r ? stat(r.samples.machinist) : undefined;
    if (!s) out.push('| backlog throughput within 10% of empty | not measured | - |');
    else
      out.push(
        `| backlog (${BACKLOG.toLocaleString('en-US')}) throughput within 10% of empty | ${(s.med * 100).toFixed(0)}% of empty (want >= 90%) | ${s.med >= 0.9 ? 'met' : `**missed** by ${((0.9 - s.med) * 100).toFixed(0)} points`} |`,
      );
  }
  ratioTarget(
    '3-step pipeline >= BullMQ single-step no-op throughput',
    '3-step pipeline (M) vs single-step no-op (B), c=100',
    1,
    '>=',
  );
  ratioTarget(
    `fan-out/fan-in of ${FAN_CHILDREN.toLocaleString('en-US')} children >= 2x BullMQ flows`,
    `fan-out/fan-in, ${FAN_CHILDREN.toLocaleString('en-US')} children`,
    2,
    '>=',
  );
  clusterTargets(out);
  flowTargets(out);
  scaleTargets(out, ratioTarget, absTarget);
  return out.join('\n');
}

/** Issue 25's targets that the bench's rows measure (the rest need 4 worker processes or a profile). */
function scaleTargets(
  out: string[],
  ratioTarget: (name: string, metric: string, want: number, dir: '>=' | '<=') => void,
  absTarget: (name: string, metric: string, want: number, unit: string) => void,
): void {
  ratioTarget('issue 25: throughput c=100, 1 worker process: >= 2.5x', 'throughput c=100, 1 proc', 2.5, '>=');
  absTarget('issue 25: Redis CPU per no-op job (c=100) <= 12 us', 'Redis CPU per job', 12, 'us');
  const finished = find('Redis memory per finished job kept');
  const perFinished = finished ? stat(finished.samples.machinist)?.med : undefined;
  for (const r of rows.filter(
    (x) => x.aof === viewing && x.metric.endsWith('parked: Redis memory per parked job'),
  )) {
    const parked = stat(r.samples.machinist)?.med;
    const k = r.metric.split(' ')[0];
    if (parked === undefined || perFinished === undefined) {
      out.push(`| issue 25: ${k} parked, memory per parked job <= 2x a finished job's | not measured | - |`);
      continue;
    }
    const x = parked / perFinished;
    out.push(
      `| issue 25: ${k} parked, memory per parked job <= 2x a finished job's | ${fmt(parked)} B = ${x.toFixed(2)}x ${fmt(perFinished)} B | ${x <= 2 ? 'met' : `**missed** by ${(((x - 2) / 2) * 100).toFixed(0)}%`} |`,
    );
  }
  for (const r of rows.filter(
    (x) => x.aof === viewing && x.metric.endsWith('queued: Redis memory per queued job'),
  ))
    ratioTarget(`issue 25: ${r.metric} <= BullMQ`, r.metric, 1, '<=');
  for (const r of rows.filter((x) => x.aof === viewing && x.workload === '17'))
    ratioTarget(`issue 25: ${r.metric}: keep the lead (< BullMQ)`, r.metric, 1, '<=');
}

/** Issue 24's targets of workloads 12-14 (the flow gate), on Machinist's medians, BullMQ's beside. */
function flowTargets(out: string[]): void {
  const med = (metric: string, system: SystemName = 'machinist') => {
    const r = find(metric);
    return r ? stat(r.samples[system])?.med : undefined;
  };
  const line = (name: string, figure: string | undefined, ok: boolean) =>
    out.push(
      `| ${name} | ${figure ?? 'not measured'} | ${figure === undefined ? '-' : ok ? 'met' : '**missed**'} |`,
    );
  const bull = (x: number | undefined) => (x === undefined ? '' : `; BullMQ ${fmt(x)}`);
  const want = THROTTLE_WANT.limit;
  for (const burst of [0, 10]) {
    const started = med(flowMetrics.started(burst));
    const off = med(flowMetrics.off(burst));
    const peak = med(flowMetrics.peakClaim(burst));
    const b = burst === 0;
    line(
      `throttle ${want}/s, burst ${burst}, 4 procs: started within 2% of limit x window`,
      started === undefined || off === undefined
        ? undefined
        : `${fmt(started)} started, ${fmt(off)}% off${b ? bull(med(flowMetrics.off(0), 'bullmq')) + '% off' : ''}`,
      (off ?? 100) <= 2,
    );
    line(
      `throttle ${want}/s, burst ${burst}: never more than ${want + burst} started in any 1000 ms (claim stamp)`,
      peak === undefined
        ? undefined
        : `most ${fmt(peak)}${b ? bull(med(flowMetrics.peakClaim(0), 'bullmq')) : ''}`,
      (peak ?? Infinity) <= want + burst,
    );
  }
  const plain = med(flowMetrics.plain);
  const lim = med(flowMetrics.limited);
  const bl = med(flowMetrics.bullLimited, 'bullmq');
  line(
    'limits (total + perKey, 10,000 keys) >= 80% of no limits',
    plain === undefined || lim === undefined
      ? undefined
      : `${((lim / plain) * 100).toFixed(0)}% (${fmt(lim)} vs ${fmt(plain)} jobs/s)`,
    lim !== undefined && plain !== undefined && lim >= 0.8 * plain,
  );
  line(
    'limits >= BullMQ rate-limited queue',
    lim === undefined || bl === undefined
      ? undefined
      : `${(lim / bl).toFixed(2)}x (${fmt(lim)} vs ${fmt(bl)} jobs/s)`,
    lim !== undefined && bl !== undefined && lim >= bl,
  );
  const ratio = med(flowMetrics.fairRatio);
  line(
    "fairness: the small key's 50 behind 50,000 within 2x alone",
    ratio === undefined ? undefined : `${ratio.toFixed(2)}x${bull(med(flowMetrics.fairRatio, 'bullmq'))}x`,
    (ratio ?? Infinity) <= 2,
  );
}

/** Issue 23's targets of workload 10, on Machinist's medians: cluster mode's own cost and the spread. */
function clusterTargets(out: string[]): void {
  const med = (metric: string) => {
    const r = find(metric);
    return r ? stat(r.samples.machinist)?.med : undefined;
  };
  const vsOneNode = (name: string, metric: string, dir: '>=' | '<=', want: number) => {
    const one = med(`one node: ${metric}`);
    const shard = med(`1-shard cluster: ${metric}`);
    if (one === undefined || shard === undefined) return void out.push(`| ${name} | not measured | - |`);
    const x = shard / one;
    const ok = dir === '>=' ? x >= want : x <= want;
    out.push(
      `| ${name} | ${fmt(shard)} vs ${fmt(one)}: ${x.toFixed(2)}x (want ${dir} ${want}x) | ${ok ? 'met' : `**missed** by ${(Math.abs(x - want) * 100).toFixed(0)} points`} |`,
    );
  };
  vsOneNode('1-shard cluster within 10% of one node: jobs/s', 'throughput c=100, 1 proc', '>=', 0.9);
  vsOneNode(
    '1-shard cluster within 10% of one node: Redis CPU per job',
    'Redis CPU per job, all shards',
    '<=',
    1.1,
  );
  for (const setup of ['3 shards, 3 queues', '3 shards, 1 queue of 3 partitions']) {
    const x = med(`${setup}: busiest shard / mean (Redis CPU)`);
    const ceiling = med(`${setup}: Redis-bound ceiling, 1e6 / busiest shard's us per job`);
    const one = med("one node: Redis-bound ceiling, 1e6 / busiest shard's us per job");
    if (x === undefined) {
      out.push(`| ${setup}: busiest shard <= 1.2x the mean | not measured | - |`);
      continue;
    }
    const proj =
      ceiling !== undefined && one !== undefined
        ? `; Redis-bound ceiling ${fmt(ceiling)} jobs/s = ${(ceiling / one).toFixed(2)}x one node's ${fmt(one)}`
        : '';
    out.push(
      `| ${setup}: busiest shard <= 1.2x the mean | ${x.toFixed(2)}x${proj} | ${x <= 1.2 ? 'met' : `**missed** by ${((x - 1.2) * 100).toFixed(0)} points`} |`,
    );
  }
}

export function commandsTable(): string {
  const lines: string[] = [];
  for (const system of SYSTEMS) {
    const runs = breakdowns[viewing][system];
    if (runs.length === 0) continue;
    const names = new Set(runs.flatMap((m) => [...m.keys()]));
    const perJob = [...names]
      .map((name) => ({
        name,
        calls: median(runs.map((m) => m.get(name)?.calls ?? 0)) / N,
        usec: median(runs.map((m) => m.get(name)?.usec ?? 0)) / N,
      }))
      .sort((a, b) => b.calls - a.calls);
    lines.push(
      `**${system}** (median of ${runs.length} runs, per job; usec = Redis's own timing, scripts include their inner commands)`,
    );
    lines.push('', '| command | calls/job | usec/job |', '|---|---:|---:|');
    for (const c of perJob.slice(0, 12))
      lines.push(`| ${c.name} | ${c.calls.toFixed(2)} | ${c.usec.toFixed(2)} |`);
    lines.push('');
  }
  return lines.join('\n');
}
