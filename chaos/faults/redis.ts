// Faults of Redis itself, under a steady load: kill -9 and restart with AOF (T4, appendfsync
// everysec and always), stalls (T5: DEBUG SLEEP of 0.5 s and 3 s, a busy script ended by
// SCRIPT KILL, every client connection dropped), and Redis at maxmemory for a few seconds (T9).

import { Cluster } from '../cluster.js';
import type { OracleLine } from '../oracle.js';
import { sleep } from '../lines.js';
import { produceMix } from '../mix.js';
import {
  contractTargets,
  exampleNotes,
  settleAndCheck,
  target,
  type Result,
  type RunEnv,
  type Scenario,
  type Target,
} from '../scenario.js';
import type { Figures } from '../checker.js';

const SETTLE_MS = 120_000;

interface Window {
  from: number;
  to: number;
}

interface RedisFault {
  id: string;
  title: string;
  procedure: string;
  appendfsync?: 'everysec' | 'always';
  /** Injects the fault (once or several times) while the load runs; returns when each ended. */
  inject(cluster: Cluster, quick: boolean): Promise<Window[]>;
  /** Targets beyond the shared ones. */
  targets?(f: Figures, lines: OracleLine[], windows: Window[]): Target[];
}

/** The first commit answered (claim or written end) after `t`, per worker: how long after. */
export function resumedWithin(lines: OracleLine[], windows: Window[]): { max: number; text: string } {
  let max = 0;
  const parts: string[] = [];
  for (const w of windows) {
    let first = Infinity;
    for (const l of lines) {
      const at = l.kind === 'K' ? Number(l.f[3]) : l.kind === 'C' ? Number(l.f[3]) : NaN;
      if (at >= w.to && at < first) first = at;
    }
    const ms = first - w.to;
    max = Math.max(max, ms);
    parts.push(Number.isFinite(ms) ? `${ms}` : 'never');
  }
  return { max, text: `${parts.join(', ')} ms after each fault ended` };
}

/** Per worker, its first reaper call answered after `t` (its connection works again). */
function reconnectedWithin(lines: OracleLine[], t: number): { max: number; text: string } {
  const first = new Map<string, number>();
  for (const l of lines) {
    if (l.kind !== 'W') continue;
    const to = Number(l.f[2]);
    if (to >= t && to < (first.get(l.f[0]!) ?? Infinity)) first.set(l.f[0]!, to);
  }
  const ms = [...first.values()].map((x) => x - t);
  const max = ms.length ? Math.max(...ms) : Infinity;
  return { max, text: `${ms.length} workers, max ${max} ms after Redis answered again` };
}

async function runRedisFault(env: RunEnv, spec: RedisFault): Promise<Result> {
  const startedAt = Date.now();
  const cluster = await Cluster.start(env.worker, { appendfsync: spec.appendfsync });
  let ok = false;
  try {
    await Promise.all([0, 1, 2, 3].map(() => cluster.spawnWorker()));
    const seconds = env.quick ? 8 : 14;
    const producing = produceMix(cluster, { jobs: seconds * 150, seed: env.seed + 4, rate: 150 });
    producing.catch(() => undefined); // awaited below; not unhandled while the fault runs
    await sleep(1500);
    const windows = await spec.inject(cluster, env.quick);
    for (const w of windows) cluster.fault(spec.id, undefined, w.from, w.to);
    await producing;
    const { figures: f, settled, lines } = await settleAndCheck(cluster, SETTLE_MS);
    const targets = [
      target('all work settled', settled, settled ? 'yes' : `not within ${SETTLE_MS} ms`),
      ...contractTargets(f, cluster.unexpectedExits),
      ...(spec.targets?.(f, lines, windows) ?? []),
    ];
    ok = targets.every((t) => t.ok);
    const retries = lines.filter((l) => l.kind === 'NOTE' && l.f[0] === 'producer-retry');
    return {
      id: spec.id,
      title: spec.title,
      procedure: `4 workers x 4, the mixed workload at 150 jobs/s; ${spec.procedure}`,
      targets,
      figures: f,
      notes: [
        `duplicates ${f.duplicates} (${f.unexplained} unexplained), refused writes ${f.refused}` +
          (retries.length ? `, producer calls refused and sent again ${retries.length}` : ''),
        ...exampleNotes(f),
      ],
      seconds: (Date.now() - startedAt) / 1000,
      kept: ok ? undefined : cluster.dir,
    };
  } finally {
    await cluster.close(!ok || env.keep);
  }
}

function killRestart(appendfsync: 'everysec' | 'always'): RedisFault {
  let readyAt = 0;
  return {
    id: appendfsync === 'always' ? 'T4b' : 'T4',
    title: `kill -9 Redis under load, restart (appendfsync ${appendfsync})`,
    procedure: `1.5 s in, redis-server is killed with SIGKILL, started again 1 s later on the same port and AOF.`,
    appendfsync,
    async inject(cluster) {
      const from = Date.now();
      await cluster.redis.kill9();
      await sleep(1000);
      await cluster.redis.restart();
      readyAt = Date.now();
      return [{ from, to: readyAt }];
    },
    targets(_f, lines) {
      const r = reconnectedWithin(lines, readyAt);
      return [target('workers reconnect within 2 s', r.max <= 2000, r.text)];
    },
  };
}

function resumes(max = 2000) {
  return (_f: Figures, lines: OracleLine[], windows: Window[]) => {
    const r = resumedWithin(lines, windows);
    return [target(`processing resumes within ${max / 1000} s`, r.max <= max, r.text)];
  };
}

/** Applies `fault` `times` times, `pauseMs` apart, and returns the window each one lasted. */
async function repeatFault(times: number, pauseMs: number, fault: () => Promise<unknown>): Promise<Window[]> {
  const out: Window[] = [];
  for (let i = 0; i < times; i++) {
    const from = Date.now();
    await fault();
    out.push({ from, to: Date.now() });
    await sleep(pauseMs);
  }
  return out;
}

const stallShort: RedisFault = {
  id: 'T5a',
  title: 'Redis stalls 0.5 s (DEBUG SLEEP)',
  procedure: 'DEBUG SLEEP 0.5, 4 times, 1.5 s apart.',
  inject: (cluster, quick) => repeatFault(quick ? 2 : 4, 1500, () => cluster.redis.stall(500)),
  targets: (f, lines, windows) => [
    target('0 duplicates for short stalls', f.duplicates === 0, f.duplicates),
    ...resumes()(f, lines, windows),
  ],
};

const stallLong: RedisFault = {
  id: 'T5b',
  title: 'Redis stalls 3 s (DEBUG SLEEP)',
  procedure: 'DEBUG SLEEP 3 (3x the lease), twice, 2 s apart.',
  inject: (cluster, quick) => repeatFault(quick ? 1 : 2, 2000, () => cluster.redis.stall(3000)),
  targets: (f, lines, windows) => [
    target('0 unexplained duplicates', f.unexplained === 0, f.unexplained),
    ...resumes()(f, lines, windows),
  ],
};

const busyScript: RedisFault = {
  id: 'T5c',
  title: 'A BUSY script, then SCRIPT KILL',
  procedure:
    'a script spins 1.5 s (busy-reply-threshold 500 ms: BUSY replies for ~1 s), then SCRIPT KILL; twice, 2 s apart.',
  inject: (cluster, quick) => repeatFault(quick ? 1 : 2, 2000, () => cluster.redis.busyScript(1500)),
  targets: (f, lines, windows) => [
    target('0 unexplained duplicates', f.unexplained === 0, f.unexplained),
    ...resumes()(f, lines, windows),
  ],
};

const dropClients: RedisFault = {
  id: 'T5d',
  title: 'All client connections dropped (CLIENT KILL TYPE normal)',
  procedure: 'CLIENT KILL TYPE normal, 4 times, 1.5 s apart.',
  inject: (cluster, quick) => repeatFault(quick ? 2 : 4, 1500, () => cluster.redis.dropClients()),
  targets: (f, lines, windows) => [
    target('0 unexplained duplicates', f.unexplained === 0, f.unexplained),
    ...resumes()(f, lines, windows),
  ],
};

const maxmemory: RedisFault = {
  id: 'T9',
  title: 'Redis at maxmemory for a few seconds',
  procedure: 'maxmemory is set to the memory in use plus 64 KiB for 3 s (OOM replies), then lifted.',
  async inject(cluster) {
    const from = Date.now();
    await cluster.redis.squeezeMemory(64 * 1024);
    await sleep(3000);
    await cluster.redis.squeezeMemory(null);
    return [{ from, to: Date.now() }];
  },
  targets: (f, lines, windows) => [
    target('jobs end done; none dead-lettered because of the OOM', f.wrongEnd === 0, f.wrongEnd),
    ...resumes()(f, lines, windows),
  ],
};

function family(id: string, title: string, specs: RedisFault[], quick: boolean): Scenario {
  return {
    id,
    title,
    quick,
    async run(env) {
      const out: Result[] = [];
      for (const s of specs) out.push(await runRedisFault(env, s));
      return out;
    },
  };
}

export const t4 = family(
  'T4',
  'kill -9 Redis under load, restart',
  [killRestart('everysec'), killRestart('always')],
  true,
);
export const t5 = family('T5', 'Redis stalls', [stallShort, stallLong, busyScript, dropClients], true);
export const t9 = family('T9', 'Redis at maxmemory', [maxmemory], true);
