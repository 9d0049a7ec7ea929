// Probe for RedisStoreOptions.scripts (src/store/redis/scriptCalls.ts): what Redis spends per
// no-op job and per script call when the scripts run as the Functions library (FCALL) and as
// EVALSHA, with one supervisor at concurrency 1 and at 100, each mode on a fresh prefix,
// interleaved round by round on one redis-server so a busy machine weighs on both alike.
//
//   node --import tsx bench/probes/scriptsMode.ts [--jobs 2000] [--rounds 3]
//       INFO commandstats usec per call of FCALL and EVALSHA, on a private redis-server
//   ... --port P --callgrind PID:FILE   on a redis-server of your own at 127.0.0.1:P (FLUSHALLed)
//       run under `valgrind --tool=callgrind --callgrind-out-file=FILE` as PID: instructions
//       per job (the whole server) and per script call (fcallCommand / evalShaCommand,
//       inclusive, from callgrind_annotate). bench/probes/scriptsMode.sh does both.
//
// Per case: N jobs enqueued (batches of 100, not counted), the counters zeroed, a supervisor
// started with `concurrency` c that runs them all (claims, dones, heartbeats, its start), the
// counters read once the last is done. c=1 sends a commit per job (a call's fixed cost weighs
// most); c=100 batches of up to 100 jobs per call.

import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Client, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { commandStats, startRedis } from '../redis.js';
import { dumpCounts, zeroCounts } from './callgrind.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? undefined : argv[i + 1];
};
const JOBS = Number(arg('jobs') ?? 2000);
const ROUNDS = Number(arg('rounds') ?? 3);
const PORT = arg('port');
const [cgPid, cgFile] = arg('callgrind')?.split(':') ?? [];
if (cgPid && !PORT) throw new Error('--callgrind wants --port: the server valgrind runs');

const MODES = ['eval', 'functions'] as const;
const CONCURRENCY = [1, 100] as const;
const noop = defineJob({ name: 'noop', work: async () => null });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const redis = PORT
  ? {
      url: `redis://127.0.0.1:${PORT}`,
      ctl: new Redis({ host: '127.0.0.1', port: Number(PORT) }),
      stop: async () => {},
    }
  : await startRedis();
const ctl = redis.ctl;

/** The last callgrind dump (after `callgrind_control -d`): the server's instructions, and per function inclusive. */
function dump(): { total: number; fn: (name: string) => number } {
  const out = execFileSync(
    'callgrind_annotate',
    ['--inclusive=yes', '--threshold=100', dumpCounts(cgPid!, cgFile!)],
    {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    },
  );
  const num = (s: string): number => Number(s.replace(/,/g, ''));
  const total = num(/^([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/m.exec(out)?.[1] ?? 'NaN');
  return {
    total,
    fn: (name) => num(new RegExp(`^\\s*([\\d,]+) \\([^)]*\\)\\s+\\S*:${name} `, 'm').exec(out)?.[1] ?? '0'),
  };
}

interface Figures {
  jobs: number;
  calls: number;
  usecPerCall: number;
  irPerJob?: number;
  irPerCall?: number;
}

async function runCase(mode: (typeof MODES)[number], concurrency: number): Promise<Figures> {
  const prefix = `sm${Math.random().toString(36).slice(2, 8)}`;
  const store = new RedisStore({ url: redis.url, prefix, scripts: mode });
  const client = new Client({ store, jobs: [noop] });
  for (let i = 0; i < JOBS; i += 100)
    await client.enqueueMany(
      Array.from({ length: Math.min(100, JOBS - i) }, () => ({ machine: 'noop' as const, input: undefined })),
    );
  await ctl.config('RESETSTAT');
  if (cgPid) zeroCounts(cgPid);
  const sup = new Supervisor({ store, jobs: [noop], concurrency, logger: pino({ level: 'silent' }) });
  await sup.start();
  const doneKey = `${prefix}:{default}:done`;
  while ((await ctl.zcard(doneKey)) < JOBS) await sleep(50);
  await sup.stop();
  const cg = cgPid ? dump() : undefined;
  const stats = await commandStats(ctl);
  const cmd = mode === 'functions' ? 'fcall' : 'evalsha';
  const s = stats.get(cmd) ?? { calls: 0, usec: 0 };
  const evalCalls = stats.get('eval')?.calls ?? 0;
  client.close();
  await store.close();
  await ctl.flushall();
  await ctl.call('FUNCTION', 'FLUSH');
  const fn = mode === 'functions' ? 'fcallCommand' : 'evalShaCommand';
  return {
    jobs: JOBS,
    calls: s.calls + evalCalls,
    usecPerCall: s.usec / s.calls,
    ...(cg
      ? { irPerJob: cg.total / JOBS, irPerCall: (cg.fn(fn) + cg.fn('evalCommand')) / (s.calls + evalCalls) }
      : {}),
  };
}

await ctl.flushall();
const results = new Map<string, Figures[]>();
try {
  for (let round = 0; round < ROUNDS; round++)
    for (const c of CONCURRENCY) {
      const order = round % 2 ? [...MODES].reverse() : MODES;
      for (const mode of order) {
        const f = await runCase(mode, c);
        const key = `c=${c}\t${mode}`;
        results.set(key, [...(results.get(key) ?? []), f]);
        console.error(`round ${round + 1} ${key}: ${JSON.stringify(f)}`);
      }
    }
} finally {
  ctl.disconnect();
  await redis.stop();
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`median of ${ROUNDS} rounds, ${JOBS} no-op jobs per case (enqueue not counted)`);
console.log(
  ['case', 'mode', 'calls/job', 'usec/call', ...(cgPid ? ['instr/job', 'instr/call'] : [])].join('\t'),
);
for (const [key, fs] of results)
  console.log(
    [
      key,
      (median(fs.map((f) => f.calls)) / JOBS).toFixed(3),
      median(fs.map((f) => f.usecPerCall)).toFixed(2),
      ...(cgPid
        ? [median(fs.map((f) => f.irPerJob!)).toFixed(0), median(fs.map((f) => f.irPerCall!)).toFixed(0)]
        : []),
    ].join('\t'),
  );
