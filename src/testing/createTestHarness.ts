// A test harness for users' own tests: their job definitions on a MemoryStore with a clock the
// test moves (no Redis, no waiting out backoffs or timers), a Supervisor and a Client on it, and
// helpers to run until nothing is left to do and to read what a job did.
//
// Time: the harness's clock runs with real time and jumps on `advance(ms)`. Everything stored is
// on it: backoff delays, delayed enqueues, a pipeline's durable timers (`after`, parked until
// their due time), event expiries, retention. What is not: an attempt's timeout (`timeoutMs`,
// measured on the worker's own clock), and timers shorter than 200 ms, which a running pipeline
// waits for in memory. Leases are on the store's clock too, so the harness's supervisor holds
// them for a day: an `advance` while a job is running does not take its lease away.

import { pino } from 'pino';
import { Client } from '../client/Client.js';
import { Supervisor } from '../supervisor/Supervisor.js';
import { JobNotFoundError, MachinistError } from '../errors.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { JobId } from '../client/jobTypes.js';
import type { AuditEntry, JobRecord } from '../store/types.js';
import { MemoryStore } from '../store/memory/MemoryStore.js';
import { TestClock } from './TestClock.js';
import { CODE } from '../errorCodes.js';

export interface TestHarnessOptions<D extends AnyDefinition> {
  /** The definitions to run (and to type the client by). */
  jobs: readonly D[];
  /** Queues to run a supervisor on (children may go to another). Default ['default']. */
  queues?: readonly string[];
  /** Jobs run at once per queue. Default 10. */
  concurrency?: number;
  /** The clock's reading at the start (ms since epoch). Default: now. */
  startAt?: number;
  /** How long `runUntilIdle` and `result` wait before they fail. Default 10,000 ms. */
  timeoutMs?: number;
}

export interface TestHarness<D extends AnyDefinition> {
  readonly store: MemoryStore;
  readonly clock: TestClock;
  /** Typed by `jobs`: enqueue, send, get, cancel, deadLetters, retryDeadLetter, ... */
  readonly client: Client<D>;
  readonly supervisors: readonly Supervisor[];
  /** The store's clock now (ms since epoch). */
  now(): number;
  /** Moves the clock `ms` forward, wakes the supervisors, and runs until idle. */
  advance(ms: number): Promise<void>;
  /**
   * Waits until nothing is left to run now: no job queued and due, none running. Jobs waiting
   * for an event, a later time or their children are idle.
   */
  runUntilIdle(options?: { timeoutMs?: number }): Promise<void>;
  /**
   * Runs until idle, then the job's record (it need not have finished). Given an id from a typed
   * enqueue, `output` has that job's output type, as with `client.waitForResult`.
   */
  job<Output = unknown>(id: JobId<Output> | string): Promise<JobRecord<Output>>;
  /** The job's audit log. */
  events(id: string): Promise<AuditEntry[]>;
  /** The path a pipeline took: the states of its audit log, in order. */
  path(id: string): Promise<unknown[]>;
  /** Stops the supervisors and closes the client and the store. */
  close(): Promise<void>;
}

/**
 * Starts a harness: a MemoryStore on a TestClock, one started Supervisor per queue, a Client.
 * @example
 * const h = await createTestHarness({ jobs: [sendInvoice] });
 * const id = await h.client.enqueue('sendInvoice', { orderId: 7 });
 * await h.runUntilIdle();
 * await h.advance(60_000); // past the retry's backoff
 * assert.equal((await h.job(id)).status, 'done');
 * await h.close();
 */
export async function createTestHarness<D extends AnyDefinition>(
  options: TestHarnessOptions<D>,
): Promise<TestHarness<D>> {
  const clock = new TestClock(options.startAt);
  const store = new MemoryStore({ now: () => clock.now() });
  const queues = options.queues ?? ['default'];
  const timeoutMs = options.timeoutMs ?? 10_000;
  const logger = pino({ level: process.env.MACHINIST_LOG ?? 'silent' });
  const supervisors = queues.map(
    (queue) =>
      new Supervisor({
        store,
        jobs: options.jobs,
        queue,
        concurrency: options.concurrency ?? 10,
        logger,
        leaseMs: 24 * 3600_000,
        heartbeatMs: 10_000,
        reaperIntervalMs: 200,
        idleWaitMs: 50,
        // A unit test must not POST to the URLs its jobs name: webhooks are tested with a
        // Supervisor of one's own and a local receiver (docs/testing.md).
        webhooks: false,
      }),
  );
  const client = new Client<D>({ store, jobs: options.jobs, queue: queues[0] });
  for (const s of supervisors) await s.start();

  const idleNow = async (): Promise<boolean> => {
    if (supervisors.some((s) => s.inFlight > 0)) return false;
    const now = clock.now();
    for (const queue of queues) {
      const c = await store.counts(queue);
      if (c.queued > 0 || c.active > 0) return false;
      const due = store.dueAt(queue);
      if (due !== null && due <= now) return false;
    }
    // Children on a queue the harness does not run would never finish: not waited for here.
    return true;
  };

  const runUntilIdle = async (o: { timeoutMs?: number } = {}) => {
    const end = performance.now() + (o.timeoutMs ?? timeoutMs);
    let calm = 0;
    // Idle twice in a row, a few turns of the event loop apart: a job finishing may enqueue the
    // next one (a child, a relay) in the turn after.
    while (calm < 2) {
      if (performance.now() > end) {
        const counts = await Promise.all(queues.map(async (q) => [q, await store.counts(q)] as const));
        throw new MachinistError(
          CODE.HARNESS_NOT_IDLE,
          `runUntilIdle: still busy after ${o.timeoutMs ?? timeoutMs} ms: ${JSON.stringify(Object.fromEntries(counts))}`,
        );
      }
      calm = (await idleNow()) ? calm + 1 : 0;
      await new Promise((r) => setTimeout(r, calm > 0 ? 5 : 1));
    }
  };

  return {
    store,
    clock,
    client,
    supervisors,
    now: () => clock.now(),
    advance: async (ms) => {
      clock.advance(ms);
      store.wakeAll();
      await runUntilIdle();
    },
    runUntilIdle,
    job: async <Output>(id: JobId<Output> | string) => {
      await runUntilIdle();
      const job = await client.get(id);
      if (!job) throw new JobNotFoundError(id);
      return job;
    },
    events: (id) => client.events(id),
    path: async (id) => (await client.events(id)).filter((e) => e.type === 'state').map((e) => e.state),
    close: async () => {
      await Promise.all(supervisors.map((s) => s.stop({ graceMs: 0 })));
      client.close();
      await store.close();
    },
  };
}
