// The bench's client side for each system: enqueue (single and bulk), the latency loop, and the
// key that counts finished jobs. Used by the bench process (run.ts) and by fill.ts.

import { Queue, QueueEvents } from 'bullmq';
import { Client, RedisStore, defineJob } from '../src/index.js';
import {
  BULL_ACTIVE_KEY,
  BULL_COMPLETED_KEY,
  BULL_WAIT_KEY,
  JOB_NAME,
  MACHINIST_ACTIVE_KEY,
  MACHINIST_DONE_KEY,
  MACHINIST_PREFIX,
  MACHINIST_QUEUED_KEY,
  MACHINIST_READY_KEY,
  QUEUE,
  type SystemName,
} from './common.js';

const noop = defineJob({ name: JOB_NAME, work: async () => undefined });

export interface Side {
  enqueueSingle(n: number, inFlight: number): Promise<void>;
  /** `keyed`: job i's input is `{ key: keyOf(i) }` (what a recording worker reports), and on
   * Machinist's side that is its concurrency key too, unless `concurrencyKey` is false (BullMQ
   * OSS has no groups: its jobs only carry the input). */
  enqueueBulk(n: number, batch: number, keyed?: Keyed): Promise<void>;
  /** Sequential enqueue -> result seen by a waiting client, `warmup` jobs left out. */
  latency(n: number, warmup: number): Promise<LatencySamples>;
  doneKey: string;
  /** Keys whose sizes are all 0 once every job ended: how a lean run (no finished record kept, so
   * no done index) knows it is over. A queued job may sit in a list (Machinist's `ready`,
   * BullMQ's `wait`) or a zset: each key says which. */
  pendingKeys: PendingKey[];
  close(): Promise<void>;
}

export interface PendingKey {
  key: string;
  type: 'zset' | 'list';
}

/**
 * Workload 18: no finished record kept. Machinist's jobs are made with `record: 'minimal'`,
 * BullMQ's with `removeOnComplete: true` (its nearest: no completed set, the job hash deleted).
 */
export interface SideOptions {
  lean?: boolean;
}

export interface Keyed {
  keyOf: (i: number) => string;
  /** Default true. */
  concurrencyKey?: boolean;
}

/** Per sample, ms: the enqueue's round trip, and from the enqueue's start to the result in hand. */
export interface LatencySamples {
  enqueue: number[];
  total: number[];
}

async function sampleLatency(
  n: number,
  warmup: number,
  one: () => Promise<[enqueueMs: number, totalMs: number]>,
): Promise<LatencySamples> {
  const out: LatencySamples = { enqueue: [], total: [] };
  for (let i = 0; i < n + warmup; i++) {
    const [enqueueMs, totalMs] = await one();
    if (i < warmup) continue;
    out.enqueue.push(enqueueMs);
    out.total.push(totalMs);
  }
  return out;
}

/** Where the private redis-server listens. */
export interface RedisAddress {
  host: string;
  port: number;
}

/** `queue`: another queue than the workers', for workload 8's control run. */
export function openSide(system: SystemName, redis: RedisAddress, queue = QUEUE, o: SideOptions = {}): Side {
  return system === 'machinist' ? machinistSide(redis, queue, o) : bullSide(redis, queue, o);
}

function machinistSide(redis: RedisAddress, queue: string, o: SideOptions): Side {
  const store = new RedisStore({ url: `redis://${redis.host}:${redis.port}`, prefix: MACHINIST_PREFIX });
  const client = new Client({ store, jobs: [noop], queue });
  const lean = o.lean ? { record: 'minimal' as const } : undefined;
  return {
    doneKey: MACHINIST_DONE_KEY,
    pendingKeys: [
      { key: MACHINIST_QUEUED_KEY, type: 'zset' },
      { key: MACHINIST_READY_KEY, type: 'list' },
      { key: MACHINIST_ACTIVE_KEY, type: 'zset' },
    ],
    enqueueSingle: (n, inFlight) =>
      pool(n, inFlight, async () => {
        await client.enqueue(JOB_NAME, {});
      }),
    enqueueBulk: async (n, batch, keyed) => {
      for (let done = 0; done < n; done += batch) {
        const k = Math.min(batch, n - done);
        await client.enqueueMany(
          Array.from({ length: k }, (_, j) => {
            if (!keyed) return { machine: JOB_NAME, input: {}, options: lean };
            const key = keyed.keyOf(done + j);
            const options = keyed.concurrencyKey === false ? {} : { concurrencyKey: key };
            return { machine: JOB_NAME, input: { key }, options };
          }),
        );
      }
    },
    latency: (n, warmup) =>
      sampleLatency(n, warmup, async () => {
        const t0 = performance.now();
        const id = await client.enqueue(JOB_NAME, {});
        const t1 = performance.now();
        const rec = await client.waitForResult(id, { queue, timeoutMs: 10_000 });
        if (rec.status !== 'done') throw new Error(`latency job ended ${rec.status}`);
        return [t1 - t0, performance.now() - t0];
      }),
    close: async () => {
      client.close();
      await store.close();
    },
  };
}

function bullSide(redis: RedisAddress, queueName: string, o: SideOptions): Side {
  const connection = { host: redis.host, port: redis.port };
  const queue = new Queue(queueName, { connection });
  let events: QueueEvents | undefined;
  const removeOnComplete = o.lean === true;
  return {
    doneKey: BULL_COMPLETED_KEY,
    pendingKeys: [
      { key: BULL_WAIT_KEY, type: 'list' },
      { key: BULL_ACTIVE_KEY, type: 'list' },
    ],
    enqueueSingle: (n, inFlight) =>
      pool(n, inFlight, async () => {
        await queue.add(JOB_NAME, {}, { removeOnComplete: false });
      }),
    enqueueBulk: async (n, batch, keyed) => {
      for (let done = 0; done < n; done += batch) {
        const k = Math.min(batch, n - done);
        await queue.addBulk(
          Array.from({ length: k }, (_, j) => ({
            name: JOB_NAME,
            data: keyed ? { key: keyed.keyOf(done + j) } : {},
            opts: { removeOnComplete },
          })),
        );
      }
    },
    latency: async (n, warmup) => {
      events ??= new QueueEvents(queueName, { connection });
      await events.waitUntilReady();
      const ready = events;
      return sampleLatency(n, warmup, async () => {
        const t0 = performance.now();
        const job = await queue.add(JOB_NAME, {}, { removeOnComplete: false });
        const t1 = performance.now();
        await job.waitUntilFinished(ready, 10_000);
        return [t1 - t0, performance.now() - t0];
      });
    },
    close: async () => {
      await events?.close();
      await queue.close();
    },
  };
}

export async function pool(n: number, width: number, fn: () => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        next++;
        await fn();
      }
    }),
  );
}
