// A chaos worker process: one Supervisor running the chaos jobs (workload.ts) with the test
// timing profile, on a RedisStore that tells the oracle what its commits claimed, wrote and had
// refused (OracleStore). It handles SIGTERM as the CLI worker does: the first stops with the
// grace period, a second forces the stop at once. An error nothing handled is written to the
// oracle (CRASH) before the process dies: the checker counts worker crashes.
// Env: REDIS_URL (or REDIS_CLUSTER: host:port,... of a cluster's nodes), DURABILITY (async |
// replicated: RedisStoreOptions.durability), PREFIX, ORACLE_DIR, CONCURRENCY (4), MAX_LEASE_REQUEUES (50), QUEUE (default),
// SCHEDULE_LEASE_MS (the schedule loop's lease; the loop runs in every worker, as in a Supervisor's default),
// MACHINIST_LOG (warn; the log goes to worker-<pid>.err beside the oracle's files).

import { join } from 'node:path';
import { pino } from 'pino';
import { RedisStore, Supervisor } from '../src/index.js';
import { ActiveJob } from '../src/runtime/ActiveJob.js';
import type { ClaimRequest, CommitOp, CommitResult } from '../src/store/types.js';
import { OracleWriter } from './oracle.js';
import { chaosJobs, GRACE_MS, TIMING } from './workload.js';

const pid = process.pid;
const oracle = new OracleWriter(process.env.ORACLE_DIR!, `worker-${pid}`);
/** The lease token of each job this process holds (its latest claim). */
const tokens = new Map<string, string>();
/**
 * Times in the oracle are the machine's clock: the wall clock, less the skew a faketime worker
 * was started with (T8), so every process's lines share one clock. (Not the worker's StoreClock:
 * a commit held through a Redis outage gives it one sample that is off by half the outage.)
 */
const skewMs = Number(process.env.CLOCK_SKEW_MS ?? 0);
const now = (): number => Date.now() - skewMs;

const crash = (err: unknown) => {
  const text = String((err as Error)?.stack ?? err)
    .replace(/\s+/g, '_')
    .slice(0, 400);
  oracle.line('CRASH', pid, Date.now(), text);
  process.exit(70);
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

/**
 * When each job's run last found its lease sure (SURE LEASE, ActiveJob.leaseReady): a step
 * starts only then, so this is the step's start as the contract sees it. The effect's own time
 * can be later by as long as the process was frozen between the two (T3's SIGSTOP lands anywhere,
 * a GC pause in between included); the checker goes by this one.
 */
const leaseCheckedAt = new Map<string, number>();
const leaseReady = ActiveJob.prototype.leaseReady; // eslint-disable-line @typescript-eslint/unbound-method -- called with its job below
ActiveJob.prototype.leaseReady = function (this: ActiveJob): Promise<void> | undefined {
  const ready = leaseReady.call(this);
  // Before the step's own continuation: reactions run in the order they were added.
  if (ready === undefined) leaseCheckedAt.set(this.id, now());
  else
    ready.then(
      () => leaseCheckedAt.set(this.id, now()),
      () => {},
    );
  return ready;
};

/** The production store, observed: every claim, written end, checkpoint and refusal. */
class OracleStore extends RedisStore {
  override async commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> {
    const sent = now();
    const res = await super.commit(queue, ops, claim);
    const t = now();
    ops.forEach((op, i) => {
      if (!res.written[i]) return oracle.line('R', op.id, op.token, pid, op.kind, t, sent);
      if (op.kind === 'done') oracle.line('C', op.id, op.token, pid, t, sent);
      else if (op.kind === 'checkpoint') oracle.line('P', op.id, op.token, pid, op.state ?? '-', t, sent);
      else {
        if (op.kind === 'park') oracle.line('P', op.id, op.token, pid, op.state ?? '-', t, sent);
        oracle.line('F', op.id, op.token, pid, op.kind, t, sent);
      }
    });
    for (const c of res.claimed) {
      tokens.set(c.id, c.token);
      oracle.line('K', c.id, c.token, pid, t);
    }
    return res;
  }

  override async reap(queue: string, options: { maxLeaseRequeues: number }) {
    const t0 = now();
    const r = await super.reap(queue, options);
    oracle.line('W', pid, t0, now(), r.requeued.length);
    return r;
  }
}

const seeds = process.env.REDIS_CLUSTER?.split(',').map((s) => {
  const [host, port] = s.split(':');
  return { host: host!, port: Number(port) };
});
const store = new OracleStore({
  ...(seeds ? { cluster: { nodes: seeds } } : { url: process.env.REDIS_URL }),
  prefix: process.env.PREFIX,
  durability: process.env.DURABILITY === 'replicated' ? 'replicated' : 'async',
});
const supervisor = new Supervisor({
  store,
  jobs: chaosJobs({
    effect: (jobId, part) =>
      oracle.line('E', jobId, part, tokens.get(jobId) ?? '-', pid, now(), leaseCheckedAt.get(jobId) ?? '-'),
  }),
  queue: process.env.QUEUE ?? 'default',
  concurrency: Number(process.env.CONCURRENCY ?? 4),
  maxLeaseRequeues: Number(process.env.MAX_LEASE_REQUEUES ?? 50),
  ...(process.env.SCHEDULE_LEASE_MS ? { schedules: { leaseMs: Number(process.env.SCHEDULE_LEASE_MS) } } : {}),
  ...TIMING,
  // Its log beside its oracle file, for the diagnosis of a missed target.
  logger: pino(
    { level: process.env.MACHINIST_LOG ?? 'warn' },
    pino.destination({ dest: join(process.env.ORACLE_DIR!, `worker-${pid}.err`), sync: true }),
  ),
});

let signals = 0;
const onSignal = () => {
  signals++;
  // The CLI's handling (src/cli/commands/worker.ts): grace first, a second signal forces.
  void supervisor.stop({ graceMs: signals === 1 ? GRACE_MS : 0 }).then(
    async () => {
      await store.close();
      process.exit(0);
    },
    () => process.exit(1),
  );
};
process.on('SIGTERM', onSignal);

await supervisor.start();
// Its wall clock too: the runner sees how far off a faketime worker's is.
process.stdout.write(`READY ${supervisor.workerId} ${Date.now()}\n`);
