// The producer's workload: a seeded mix of simple jobs, flows (steps, a durable timer, a GO
// event sent at a random time) and fan-outs (a quarter of them cancelled at a random time),
// enqueued in batches, all at once or at a steady rate.

import type { EnqueueItem } from '../src/index.js';
import type { Cluster } from './cluster.js';

/**
 * CHAOS_RECORD=minimal: every simple job is made with `record: 'minimal'` (docs/concepts.md), so
 * its record is deleted as it ends done; the checker then proves it was not lost from the
 * queue's tally of done jobs instead of its record (checker.ts, MINIMAL).
 */
export const MINIMAL_RECORDS = process.env.CHAOS_RECORD === 'minimal';

/** A small seeded PRNG (mulberry32): a chaos run's workload is the same for the same seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface MixOptions {
  jobs: number;
  seed: number;
  /** Shares of flows and fan-outs (the rest: simple jobs). Default 0.1 each. */
  flows?: number;
  fans?: number;
  /** Share of fan-outs cancelled. Default 0.25. */
  cancels?: number;
  /** Work time of each job or step, ms. Default 5-40. */
  ms?: [number, number];
  /** Jobs per second; default: all at once (in batches of `batch`). */
  rate?: number;
  batch?: number;
  /** Sends and cancels happen within this many ms of the enqueue. Default 1500. */
  within?: number;
}

/** Enqueues the mix; resolves once every batch was acknowledged. */
export async function produceMix(cluster: Cluster, o: MixOptions): Promise<void> {
  const rand = rng(o.seed);
  const [lo, hi] = o.ms ?? [5, 40];
  const batch = o.batch ?? 200;
  const within = o.within ?? 1500;
  const startedAt = Date.now();
  for (let n = 0; n < o.jobs; n += batch) {
    const items: EnqueueItem[] = [];
    for (let i = n; i < Math.min(o.jobs, n + batch); i++) {
      const r = rand();
      const machine =
        r < (o.flows ?? 0.1) ? 'flow' : r < (o.flows ?? 0.1) + (o.fans ?? 0.1) ? 'fan' : 'simple';
      const ms = Math.round(lo + rand() * (hi - lo));
      items.push({
        machine,
        input: { ms },
        // Keyed, so that a batch Redis refused can be sent again (Cluster.enqueue).
        options: {
          idempotencyKey: `${o.seed}-${i}`,
          ...(MINIMAL_RECORDS && machine === 'simple' ? { record: 'minimal' as const } : {}),
        },
      });
    }
    const ids = await cluster.enqueue(items);
    ids.forEach((id, i) => {
      const m = items[i]!.machine;
      if (m === 'flow') cluster.sendLater(id, n + i, Math.round(rand() * within));
      if (m === 'fan' && rand() < (o.cancels ?? 0.25)) cluster.cancelLater(id, Math.round(rand() * within));
    });
    if (o.rate) {
      const due = startedAt + ((n + batch) / o.rate) * 1000;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }
}
