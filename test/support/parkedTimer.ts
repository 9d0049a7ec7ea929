// A timed job (earlyLeaseJobs.ts TIMED) parked by one supervisor and run by another, each on a
// store of its own choosing: the tests of the store clock's bounds (StoreClock.ts) give one of
// them commits that reach Redis, or come back, late.

import { pino } from 'pino';
import { Client, Supervisor, type SupervisorOptions } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { TIMED, timedPipeline } from '../fixtures/earlyLeaseJobs.js';

const SETTINGS = { concurrency: 4, leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `store` whose commits are late by `ms`: on their way to Redis ('arrive': each runs at the end
 * of its round trip) or on their way back ('answer': each ran at its start).
 */
export function lateCommits(store: Store, ms: number, side: 'arrive' | 'answer'): Store {
  const late: Store = Object.create(store) as Store;
  late.commit = async (queue, ops, claim) => {
    if (side === 'arrive') await sleep(ms);
    const res = await store.commit(queue, ops, claim);
    if (side === 'answer') await sleep(ms);
    return res;
  };
  return late;
}

/**
 * A TIMED job due `dueInMs` from now, parked by a supervisor on `parker`, which then stops, and
 * run to its end by one on `runner` (with `runnerOptions`): how it ended, when it was due and
 * when its step ran, both on this host's clock (Redis runs here: its TIME agrees with it to a ms or two).
 */
export async function parkThenRun(o: {
  store: Store;
  parker: Store;
  runner: Store;
  runnerOptions?: Partial<SupervisorOptions>;
  compile?: boolean;
  dueInMs: number;
}): Promise<{ status: string; at: number; ranAt: number }> {
  const jobs = [timedPipeline(() => {}, o.compile)];
  const logger = pino({ level: 'silent' });
  const parker = new Supervisor({ store: o.parker, jobs, logger, ...SETTINGS });
  const runner = new Supervisor({ store: o.runner, jobs, logger, ...SETTINGS, ...o.runnerOptions });
  const client = new Client({ store: o.store, jobs });
  try {
    await parker.start();
    const at = Date.now() + o.dueInMs;
    const id = await client.enqueue(TIMED, { at });
    while ((await client.get(id))?.status !== 'waiting') await sleep(20);
    await parker.stop();
    await runner.start();
    const job = await client.waitForResult(id, { timeoutMs: 10_000 });
    return { status: job.status, at, ranAt: (job.output as { ranAt: number }).ranAt };
  } finally {
    await Promise.all([parker.stop(), runner.stop()]);
    client.close();
  }
}
