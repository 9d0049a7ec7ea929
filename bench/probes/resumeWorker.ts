// Probe: the worker's own part of a parked pipeline's resume, without Redis (issue 25: what
// resumeCost.ts measures as "worker CPU per resume", but exact enough to compare two builds on a
// loaded host). The real code from the claim reply on: commitRoundTrip (encodeOps, the FCALL's
// arguments made into the bytes ioredis writes, decodeClaimed of a packed reply), runClaimedJob,
// the compiled runner's resume (its timer due at once), the done queued in CommitWrites and
// answered. Only the socket is missing: the command's bytes are made (a text encoded as a socket
// write would), not sent; the reply comes from the event loop's poll phase, as a socket's does.
// Claims come in waves of 50 (the pump's claim cap at c=100), the dones of one wave travel with
// the next wave's claim, as the pump's commits carry them.
//
//   npm run build && node --import tsx --import ./bench/fromDist.mjs bench/probes/resumeWorker.ts [N=20000] [rounds=3]
//     [--heap FILE]   a sampling heap profile of the rounds, every allocation, collected or not
//   (PROBE_PEEK=1 prints the first done op, to check it is the one resumeCost.ts's worker writes;
//   node --trace-gc-nvp sums what the rounds allocate and promote.)
//
// Prints per round: CPU (user + system) per resume, GC time per resume (perf_hooks 'gc', wall
// time) and the bytes of the commits per resume.

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { MessageChannel } from 'node:worker_threads';
import { pino } from 'pino';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';
import { ActiveJob } from '../../src/runtime/ActiveJob.js';
import { Registry } from '../../src/runtime/registry.js';
import { runClaimedJob, type ClaimContext } from '../../src/supervisor/runClaimedJob.js';
import { CommitWrites } from '../../src/supervisor/CommitWrites.js';
import { commitRoundTrip } from '../../src/store/redis/commitOps.js';
import { sendFcall } from '../../src/store/redis/fcallCommand.js';
import type { RedisContext } from '../../src/store/redis/RedisContext.js';
import type { RedisClient } from '../../src/store/redis/redisClient.js';
import { queueKeys } from '../../src/store/keys.js';
import { parkUntil } from '../machines.js';
import { PARKED_NAME } from '../common.js';

const argv = process.argv.slice(2);
const heapAt = argv.indexOf('--heap');
/** Where to write a sampling heap profile of the rounds (every allocation, collected or not). */
const HEAP_FILE = heapAt < 0 ? undefined : argv.splice(heapAt, 2)[1];
const N = Number(argv[0] ?? 20_000);
const ROUNDS = Number(argv[1] ?? 3);
const WAVE = 50;
const log = pino({ level: 'warn' });

/** One claim reply's text, as commit-12.lua packs it (commitOps.ts decodeClaimed). */
function packText(s: string, into: number[]): void {
  const b = Buffer.from(s, 'utf8');
  let n = b.length;
  while (n >= 128) {
    into.push((n % 128) + 128);
    n = Math.floor(n / 128);
  }
  into.push(n);
  for (const x of b) into.push(x);
}

const replies = new Map<string, Buffer>();
/** A claim reply of `k` parked jobs whose timer is due, each with `snapshot` (made once). */
function claimReply(k: number, snapshot: string): Buffer {
  const key = `${k}|${snapshot}`;
  const made = replies.get(key);
  if (made) return made;
  const bytes: number[] = [];
  for (let n = 0; n < k; n++) {
    packText(`01M8J9P1HBZ6160HM2X${String(n).padStart(7, '0')}`, bytes);
    packText(`vm-probe:${n}`, bytes);
    packText('{"at":1}', bytes);
    // 14 fields: machine, version, max attempts, status, snapshot, attempt, lease requeues, ...
    bytes.push(14);
    for (const f of [PARKED_NAME, '', '', 'working', snapshot, '', '', '', '', '', '', '', '', ''])
      packText(f, bytes);
  }
  const b = Buffer.from(bytes);
  replies.set(key, b);
  return b;
}

const keys = queueKeys('mb:', 'bench');
const registry = new Registry([parkUntil]);
let reply: unknown[] = [];
let answer: () => void = () => {};
const replyPort = new MessageChannel();
replyPort.port1.on('message', () => answer());
let encodedBytes = 0;
// ioredis's sendCommand, up to the socket: the command's RESP text, encoded as a socket write would.
const redis = {
  sendCommand(command: { toWritable(s: unknown): string | Buffer }) {
    const w = command.toWritable(undefined);
    encodedBytes += typeof w === 'string' ? Buffer.from(w).length : w.length;
    // Answered from the event loop's poll phase (a MessagePort's message), as a socket's reply
    // is: a job started then sees its timer's immediate before its first flush's setTimeout(0).
    const r = reply;
    return new Promise((resolve) => {
      answer = () => resolve(r);
      replyPort.port2.postMessage(null);
    });
  },
} as unknown as RedisClient;
const ctx = {
  keys: () => keys,
  eventsMaxLen: 10_000,
  finishedTtlMs: 604_800_000,
  runBuffers: (_name: string, k: string[], args: (string | number)[]) =>
    sendFcall(redis, 'machinist_probe_commit', k.length, k, args, true),
} as unknown as RedisContext;

const writes = new CommitWrites({ log, onLeaseLost: () => {}, onBackoff: () => {} });
const host = {
  queue: 'bench',
  write: (op: CommitOp, job?: ActiveJob) =>
    writes.queue(op, job !== undefined && job.claimed.status === 'working' && !job.claimed.leaseRequeues),
};
const claimCtx: ClaimContext = {
  queue: 'bench',
  registry,
  store: { jobStatus: () => Promise.resolve(null) },
  log,
  attemptHost: {
    queue: 'bench',
    log,
    now: () => Date.now(),
    latest: () => Date.now(),
    readInbox: () => Promise.resolve([]),
    fanOpen: () => Promise.reject(new Error('no fan-out here')),
    enqueueChildren: () => Promise.reject(new Error('no fan-out here')),
    cancelTree: () => Promise.reject(new Error('no fan-out here')),
  },
  maxPayloadBytes: 1 << 20,
  noteCrossQueueChild: () => {},
};

const tick = () => new Promise((r) => setImmediate(r));

/** Runs `total` resumes in waves; returns when every done is answered. */
async function resumes(total: number, snapshot: string): Promise<void> {
  let running = 0;
  let batch = writes.take().batch;
  for (let started = 0; started < total || batch.length > 0 || running > 0;) {
    const k = Math.min(WAVE, total - started);
    reply = [batch.length, claimReply(k, snapshot), null, Date.now()];
    const res = await commitRoundTrip(
      ctx,
      'bench',
      batch.map((p) => p.op),
      k > 0 ? { workerId: 'vm-probe', leaseMs: 30_000, max: k, loadMachines: [PARKED_NAME] } : undefined,
    );
    writes.sent(batch);
    writes.answered(batch, res.written);
    for (const c of res.claimed) {
      running++;
      void runClaimedJob(claimCtx, new ActiveJob(c, host)).then(() => running--);
    }
    started += res.claimed.length;
    // Every job of the wave queues its done (its timer fires at the next immediate).
    for (let i = 0; i < 20 && writes.waiting < res.claimed.length; i++) await tick();
    await tick();
    batch = writes.take().batch;
    if (process.env.PROBE_PEEK && batch.length > 0 && !peeked) {
      peeked = true;
      console.log(JSON.stringify(batch[0]!.op));
    }
  }
}
let peeked = false;

/** The snapshot the runner parks parkUntil with (its timer due at `at`), from a fresh run. */
async function parkedSnapshot(at: number): Promise<string> {
  let parked: string | undefined;
  const c: ClaimedJob = {
    ...(await commitRoundTrip(ctx, 'bench', [])).claimed[0]!,
    input: JSON.stringify({ at }),
    snapshot: undefined,
    status: 'queued',
  };
  const job = new ActiveJob(c, {
    queue: 'bench',
    write: (op) => {
      if (op.kind === 'park') parked = op.snapshot;
      return Promise.resolve(true);
    },
  });
  await runClaimedJob(claimCtx, job);
  if (!parked) throw new Error('the fresh run did not park');
  return parked;
}

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });

reply = [0, claimReply(1, ''), null, Date.now()];
const snapshot = await parkedSnapshot(Date.now() + 300);
await new Promise((r) => setTimeout(r, 400));
await resumes(5_000, snapshot); // warm-up
const inspector = HEAP_FILE ? new Session() : undefined;
if (inspector) {
  inspector.connect();
  await inspector.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
}
for (let r = 0; r < ROUNDS; r++) {
  gcMs = 0;
  encodedBytes = 0;
  const cpu0 = process.cpuUsage();
  await resumes(N, snapshot);
  const cpu = process.cpuUsage(cpu0);
  await tick();
  console.log(
    `round ${r + 1}: ${N} resumes, worker CPU ${((cpu.user + cpu.system) / N).toFixed(2)} us/resume, ` +
      `GC ${((gcMs * 1000) / N).toFixed(2)} us/resume, ${(encodedBytes / N).toFixed(0)} B sent/resume`,
  );
}
if (inspector) {
  const { profile } = (await inspector.post('HeapProfiler.stopSampling')) as { profile: unknown };
  writeFileSync(HEAP_FILE!, JSON.stringify(profile));
}
replyPort.port1.close();
