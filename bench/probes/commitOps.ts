// Probe for the commit ops' wire format (src/store/redis/encodeOps.ts, lua/commit-12.lua): what
// a commit costs Redis per job, from INFO commandstats (usec of FCALL or EVALSHA, the scripts' own time:
// no client, no network), for the store of each source tree given, interleaved round by round
// on one private redis-server so that a busy machine weighs on all of them alike.
//
//   node --import tsx bench/probes/commitOps.ts ROOT... [--jobs 20000] [--rounds 5]
//   ... [--band B]   the jobs' priority band (0-3; default 2, the normal one)
//   ... [--max-attempts N]   the jobs' max attempts (default 3; 4 is the default one, whose
//       records of data format 4 hold no `v` and `ma`)
//   ... [--port P --callgrind PID:FILE]   on a redis-server of your own at 127.0.0.1:P (it is
//       FLUSHALLed) run under `valgrind --tool=callgrind --callgrind-out-file=FILE` as PID:
//       instructions per job instead of usec, which repeat on a busy machine, as times do not
//
// ROOT is a checkout of Machinist (its src/index.ts is imported), e.g. a `git worktree add` of an
// older commit. Four cases per root and round (--cases a,b for some), batches of 100 as the bench's workers send them:
//   plain     claim 100, then finish each with a plain done (the op most jobs end with)
//   pipeline  claim 100, checkpoint each (snapshot, state, progress, 2 log entries), then
//             finish each with a done carrying its state and log
//   pipeline3 the bench's workload 6b (3-step pipeline, steps yield): claim 100, checkpoint each
//             three times, one commit per checkpoint (the first with 2 log entries, the others 1),
//             then the done with its state and log
//   pipeline3 checkpoints   pipeline3's three checkpoint commits alone (every job claimed first,
//             the claims and dones not counted): what workload 6b's checkpoints cost, per job
//   keyed plain   plain, each job with one of 10,000 concurrency keys (no limits set: what a key
//             costs a queue that has no per-key limit)
//   minimal plain   plain, each job made with a minimal record (`record: 'minimal'`: no stream
//             entries, the record deleted as it ends done); a root without them runs plain
//   stale plain, stale pipeline   the same ops (half checkpoints, half dones with a state, in the
//             latter) from a worker whose lease is lost: read, checked, fenced off, not written
//   enqueue   the enqueue of the plain case's jobs alone (batches of 100; plain + enqueue is what
//             a no-op job costs Redis in all)
//   minimal enqueue   the enqueue of the minimal plain case's jobs alone
//   supervised pipeline3   workload 6b as the bench runs it: the root's own 3-step machine
//             (bench/machines.ts, threeStepsYield) run by an in-process Supervisor of the root
//             (concurrency 100) until every job is done, its commits as the pump batches them
//             (several steps of one run may share a call); the enqueue not counted, the
//             supervisor's heartbeats and polls counted (only with --cases)
//   supervised parked   workload 15 as the bench runs it: the root's parkUntil pipelines (an
//             `after` timer) run by an in-process Supervisor of the root (concurrency 100) to their
//             timer and parked, all due at one instant; counted from when all are parked until
//             every job is done: the due timers' promotion, the resumes' claims and dones, the
//             supervisor's polls (only with --cases; --due MS: the due time's distance from the
//             enqueue, 5,000 + 2 ms a job by default, more under callgrind)
//   supervised park   workload 15's first run: JOBS parkUntil pipelines enqueued (not counted),
//             then an in-process Supervisor of the root (concurrency 100) claims each, runs it to
//             its timer (an hour away) and parks it; counted from its start until all are parked
//             (the claims, the parks, the supervisor's polls; only with --cases)
// Printed: per case and root, the median over rounds of script usec per job (or op, when stale;
// the first claim of each store is not counted, the others are).

import { resolve } from 'node:path';
import { instructionsSinceZero, zeroCounts } from './callgrind.js';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { commandStats, startRedis } from '../redis.js';
import type { RedisStore } from '../../src/index.js';
import type { CommitOp, NewJob } from '../../src/store/types.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(argv.splice(i, 2)[1]);
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} wants a whole number`);
  return v;
};
const text = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? undefined : argv.splice(i, 2)[1];
};
const PORT = text('port');
const [cgPid, cgFile] = text('callgrind')?.split(':') ?? [];
if (cgPid && !PORT) throw new Error('--callgrind wants --port: the server valgrind runs');
// Under callgrind on a loaded host a claim that promotes many due timers can take seconds.
const CALL_TIMEOUT_MS = cgPid ? 120_000 : undefined;
const ONLY_CASES = text('cases')?.split(',');
const JOBS = opt('jobs', 20_000);
// The jobs' priority band: 2, the normal band (no `pr` field), as the bench's jobs have.
const BAND = Number(text('band') ?? 2);
const ROUNDS = opt('rounds', 5);
// The jobs' max attempts: 3 by default (a record that holds `v` and `ma`); 4, the default one,
// gives the record of data format 4 that leaves both out (THE DEFAULTS LEFT OUT, lcCreate.lua).
const MAX_ATTEMPTS = opt('max-attempts', 3);
const DUE_MS = opt('due', 5_000 + 2 * JOBS);
const roots = argv;
if (roots.length === 0) throw new Error('usage: commitOps.ts ROOT... [--jobs N] [--rounds N]');
const BATCH = 100;

type Store = Pick<RedisStore, 'enqueue' | 'commit' | 'close'>;
type StoreClass = new (o: { url: string; prefix: string; commandTimeoutMs?: number }) => Store;

/** What the supervised case takes from a root: its runtime and its bench's workload 6b. */
interface Runtime {
  root: string;
  Supervisor: new (o: { store: Store; jobs: unknown[]; queues: string[]; concurrency: number }) => {
    start(): Promise<void>;
    stop(): Promise<void>;
  };
  Client: new (o: { store: Store; jobs: unknown[]; queue: string }) => {
    enqueueMany(jobs: { machine: string; input: unknown }[]): Promise<unknown>;
  };
}

const classes: StoreClass[] = [];
const runtimes = new Map<StoreClass, Runtime>();
for (const root of roots) {
  const mod = (await import(pathToFileURL(resolve(root, 'src/index.ts')).href)) as {
    RedisStore: StoreClass;
  } & Omit<Runtime, 'root'>;
  classes.push(mod.RedisStore);
  runtimes.set(mod.RedisStore, { root, Supervisor: mod.Supervisor, Client: mod.Client });
}

const claim = { workerId: 'w', leaseMs: 60_000, max: BATCH, loadMachines: [] as string[] };
const DONE_LOG = ['{"type":"done"}'];

type Case =
  | 'plain'
  | 'keyed plain'
  | 'minimal plain'
  | 'pipeline'
  | 'pipeline3'
  | 'pipeline3 checkpoints'
  | 'stale plain'
  | 'stale pipeline'
  | 'enqueue'
  | 'minimal enqueue'
  | 'supervised pipeline3'
  | 'supervised parked'
  | 'supervised park';
type Claimed = { id: string; token: string };

const checkpoint = (c: Claimed): CommitOp => ({
  kind: 'checkpoint',
  id: c.id,
  token: c.token,
  status: 'working',
  snapshot: '{"w":{"value":"b","context":{"n":1}}}',
  state: '"b"',
  progress: '50',
  log: ['{"type":"state","state":"a"}', '{"type":"state","state":"b"}'],
});
/** Workload 6b's checkpoint of a step state, as the compiled runner writes it. */
const stepCheckpoint = (c: Claimed, state: string, first: boolean): CommitOp => ({
  kind: 'checkpoint',
  id: c.id,
  token: c.token,
  status: 'working',
  snapshot: `{"w":{"status":"active","value":${state},"historyValue":{},"context":{},"children":{"s1":{"snapshot":{"status":"active"},"src":"noopStep","syncSnapshot":false}}},"t":[]}`,
  state,
  inboxConsumed: 0,
  log: [
    ...(first ? ['{"type":"started"}'] : []),
    `{"type":"state",${first ? '"context":{},' : ''}"state":${state}}`,
  ],
});
const done = (c: Claimed, plain: boolean): CommitOp =>
  plain
    ? { kind: 'done', id: c.id, token: c.token, output: '{"ok":1}', snapshot: '', log: DONE_LOG }
    : {
        kind: 'done',
        id: c.id,
        token: c.token,
        output: '{"ok":1}',
        snapshot: '',
        state: '"end"',
        log: ['{"type":"state","state":"end"}', '{"type":"done"}'],
      };

/**
 * One case on a fresh store: the cost per job over its commits (enqueue not counted). The stale
 * cases send the same ops with a token that lost its lease, JOBS of them: each is read, checked
 * and fenced off (one HMGET), nothing written, so what they cost is mostly reading the ops.
 */
async function runCase(Store: StoreClass, url: string, kind: Case): Promise<number> {
  if (kind === 'supervised pipeline3') return runSupervised(Store, url);
  if (kind === 'supervised parked') return runParked(Store, url);
  if (kind === 'supervised park') return runPark(Store, url);
  const store = new Store({
    url,
    prefix: `probe${Math.random().toString(36).slice(2, 8)}`,
    commandTimeoutMs: CALL_TIMEOUT_MS,
  });
  const stale = kind.startsWith('stale');
  const total = stale ? BATCH : JOBS;
  const zero = async (): Promise<void> => {
    await ctl.config('RESETSTAT');
    if (cgPid) zeroCounts(cgPid);
  };
  const enqueueOnly = kind === 'enqueue' || kind === 'minimal enqueue';
  if (enqueueOnly) await zero();
  for (let i = 0; i < total; i += 100) {
    const jobs: NewJob[] = [];
    for (let k = i; k < Math.min(total, i + 100); k++)
      jobs.push({
        id: `j${k}`,
        machine: 'm',
        version: 1,
        input: '{"n":1}',
        band: BAND,
        delayMs: 0,
        maxAttempts: MAX_ATTEMPTS,
        ...(kind === 'keyed plain' ? { concurrencyKey: `k${k % 10_000}` } : {}),
        ...(kind === 'minimal plain' || kind === 'minimal enqueue' ? { minimal: true } : {}),
      });
    await store.enqueue('default', jobs);
  }
  if (enqueueOnly) return finish(store);
  if (kind === 'pipeline3 checkpoints') return runCheckpoints(store, zero);
  let { claimed } = await store.commit('default', [], claim);
  await zero();
  if (stale) {
    const lost = claimed.map((c) => ({ id: c.id, token: 'lost' }));
    const ops =
      kind === 'stale plain'
        ? lost.map((c) => done(c, true))
        : lost.map((c, i) => (i % 2 ? done(c, false) : checkpoint(c)));
    for (let n = 0; n < JOBS; n += BATCH) await store.commit('default', ops);
  } else {
    while (claimed.length > 0) {
      if (kind === 'pipeline') await store.commit('default', claimed.map(checkpoint));
      if (kind === 'pipeline3')
        for (const [i, state] of ['"one"', '"two"', '"three"'].entries())
          await store.commit(
            'default',
            claimed.map((c) => stepCheckpoint(c, state, i === 0)),
          );
      ({ claimed } = await store.commit(
        'default',
        claimed.map((c) => done(c, !kind.startsWith('pipeline'))),
        claim,
      ));
    }
  }
  return finish(store);
}

/** The checkpoints case: every job claimed (not counted), then their 3 checkpoint commits (counted). */
async function runCheckpoints(store: Store, zero: () => Promise<void>): Promise<number> {
  const all: Claimed[] = [];
  for (;;) {
    const { claimed } = await store.commit('default', [], claim);
    if (claimed.length === 0) break;
    all.push(...claimed);
  }
  await zero();
  for (let i = 0; i < all.length; i += BATCH) {
    const batch = all.slice(i, i + BATCH);
    for (const [k, state] of ['"one"', '"two"', '"three"'].entries())
      await store.commit(
        'default',
        batch.map((c) => stepCheckpoint(c, state, k === 0)),
      );
  }
  return finish(store);
}

/** The supervised case: JOBS of workload 6b run by a Supervisor of the root `Store` came from. */
async function runSupervised(Store: StoreClass, url: string): Promise<number> {
  const rt = runtimes.get(Store)!;
  const bench = (file: string) => import(pathToFileURL(resolve(rt.root, 'bench', file)).href);
  const { threeStepsYield } = (await bench('machines.ts')) as { threeStepsYield: unknown };
  const { PIPELINE_YIELD_NAME, QUEUE } = (await bench('common.ts')) as {
    PIPELINE_YIELD_NAME: string;
    QUEUE: string;
  };
  const prefix = `probe${Math.random().toString(36).slice(2, 8)}`;
  const store = new Store({ url, prefix, commandTimeoutMs: CALL_TIMEOUT_MS });
  const client = new rt.Client({ store, jobs: [threeStepsYield], queue: QUEUE });
  for (let i = 0; i < JOBS; i += 1_000)
    await client.enqueueMany(
      Array.from({ length: Math.min(1_000, JOBS - i) }, () => ({ machine: PIPELINE_YIELD_NAME, input: {} })),
    );
  await ctl.config('RESETSTAT');
  if (cgPid) zeroCounts(cgPid);
  const sup = new rt.Supervisor({ store, jobs: [threeStepsYield], queues: [QUEUE], concurrency: 100 });
  await sup.start();
  while ((await ctl.zcard(`${prefix}:{${QUEUE}}:done`)) < JOBS) await new Promise((r) => setTimeout(r, 100));
  const cost = cgPid ? instructionsSinceZero(cgPid, cgFile!) : undefined;
  await sup.stop();
  return finish(store, cost);
}

/** What the parked and park cases start with: the root's workload-15 machine, a fresh prefix. */
async function parkedSetup(Store: StoreClass, url: string) {
  const rt = runtimes.get(Store)!;
  const bench = (file: string) => import(pathToFileURL(resolve(rt.root, 'bench', file)).href);
  const { parkUntil } = (await bench('machines.ts')) as { parkUntil: { name: string } };
  const { QUEUE } = (await bench('common.ts')) as { QUEUE: string };
  const prefix = `probe${Math.random().toString(36).slice(2, 8)}`;
  const store = new Store({ url, prefix, commandTimeoutMs: CALL_TIMEOUT_MS });
  const client = new rt.Client({ store, jobs: [parkUntil], queue: QUEUE });
  return { rt, parkUntil, QUEUE, prefix, store, client };
}

/** The parked case: JOBS of workload 15 parked by a Supervisor of the root, then resumed (counted). */
async function runParked(Store: StoreClass, url: string): Promise<number> {
  const { rt, parkUntil, QUEUE, prefix, store, client } = await parkedSetup(Store, url);
  const sup = new rt.Supervisor({ store, jobs: [parkUntil], queues: [QUEUE], concurrency: 100 });
  await sup.start();
  const at = Date.now() + DUE_MS;
  for (let i = 0; i < JOBS; i += 1_000)
    await client.enqueueMany(
      Array.from({ length: Math.min(1_000, JOBS - i) }, () => ({ machine: parkUntil.name, input: { at } })),
    );
  while ((await ctl.zcard(`${prefix}:{${QUEUE}}:delayed`)) < JOBS) {
    if (Date.now() >= at) throw new Error('supervised parked: not all parked by the due time (raise --due)');
    await new Promise((r) => setTimeout(r, 50));
  }
  await ctl.config('RESETSTAT');
  if (cgPid) zeroCounts(cgPid);
  while ((await ctl.zcard(`${prefix}:{${QUEUE}}:done`)) < JOBS) await new Promise((r) => setTimeout(r, 100));
  const cost = cgPid ? instructionsSinceZero(cgPid, cgFile!) : undefined;
  await sup.stop();
  return finish(store, cost);
}

/** The park case: JOBS of workload 15 enqueued, then claimed and parked by a Supervisor (counted). */
async function runPark(Store: StoreClass, url: string): Promise<number> {
  const { rt, parkUntil, QUEUE, prefix, store, client } = await parkedSetup(Store, url);
  const at = Date.now() + 3_600_000;
  for (let i = 0; i < JOBS; i += 1_000)
    await client.enqueueMany(
      Array.from({ length: Math.min(1_000, JOBS - i) }, () => ({ machine: parkUntil.name, input: { at } })),
    );
  await ctl.config('RESETSTAT');
  if (cgPid) zeroCounts(cgPid);
  const sup = new rt.Supervisor({ store, jobs: [parkUntil], queues: [QUEUE], concurrency: 100 });
  await sup.start();
  while ((await ctl.zcard(`${prefix}:{${QUEUE}}:delayed`)) < JOBS)
    await new Promise((r) => setTimeout(r, 100));
  const cost = cgPid ? instructionsSinceZero(cgPid, cgFile!) : undefined;
  await sup.stop();
  return finish(store, cost);
}

/** The cost since the counters were zeroed, per job; closes the store and empties the server. */
async function finish(store: Store, measured?: number): Promise<number> {
  const stats = cgPid ? undefined : await commandStats(ctl);
  // The scripts' own time, whichever way they ran (RedisStoreOptions.scripts).
  const scriptUsec = (): number =>
    ['fcall', 'evalsha', 'eval'].reduce((sum, cmd) => sum + (stats!.get(cmd)?.usec ?? 0), 0);
  const cost = measured ?? (cgPid ? instructionsSinceZero(cgPid, cgFile!) : scriptUsec());
  await store.close();
  await ctl.flushall();
  return cost / JOBS;
}

const ALL_CASES: readonly Case[] = [
  'plain',
  'keyed plain',
  'minimal plain',
  'pipeline',
  'pipeline3',
  'pipeline3 checkpoints',
  'stale plain',
  'stale pipeline',
  'enqueue',
  'minimal enqueue',
  'supervised pipeline3',
  'supervised parked',
  'supervised park',
];
// The supervised cases run a whole runtime: only when asked for (--cases).
const CASES = ALL_CASES.filter((c) => (ONLY_CASES ? ONLY_CASES.includes(c) : !c.startsWith('supervised')));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const redis = PORT
  ? (() => {
      const ctl = new Redis({ host: '127.0.0.1', port: Number(PORT) });
      return { url: `redis://127.0.0.1:${PORT}`, ctl, stop: async () => void ctl.disconnect() };
    })()
  : await startRedis();
const ctl = redis.ctl;
await ctl.flushall();
const unit = cgPid ? 'instructions' : 'us';
const results = new Map<string, number[]>();
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of CASES) {
      // Alternate which root goes first, so neither always runs on the warmer server.
      const order = roots.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) {
        const us = await runCase(classes[i]!, redis.url, kind);
        const key = `${kind}\t${roots[i]}`;
        results.set(key, [...(results.get(key) ?? []), us]);
        console.error(`round ${round + 1} ${kind} ${roots[i]}: ${us.toFixed(3)} ${unit}/job`);
      }
    }
  }
} finally {
  await redis.stop();
}
console.log(
  `${cgPid ? 'redis-server instructions' : 'script usec'} per job, median of ${ROUNDS} rounds of ${JOBS} jobs (claim included)`,
);
for (const [key, xs] of results)
  console.log(`${key}\t${median(xs).toFixed(3)}\t(${xs.map((x) => x.toFixed(2)).join(' ')})`);
