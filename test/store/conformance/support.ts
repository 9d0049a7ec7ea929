// Small helpers for the conformance cases: a job as the client would hand it to the store, and a
// claim as a worker makes it.

import { monotonicFactory } from 'ulid';
import type { ClaimedJob, NewJob, Store } from '../../../src/store/types.js';

const ulid = monotonicFactory();

export function newJob(fields: Partial<NewJob> = {}): NewJob {
  return {
    id: ulid(),
    machine: 'm',
    version: 1,
    input: '{}',
    band: 2,
    delayMs: 0,
    maxAttempts: 3,
    ...fields,
  };
}

export async function enqueueOne(
  store: Store,
  fields: Partial<NewJob> = {},
  queue = 'default',
): Promise<string> {
  const [r] = await store.enqueue(queue, [newJob(fields)]);
  return r!.id;
}

export async function claim(
  store: Store,
  options: { max?: number; leaseMs?: number; workerId?: string; queue?: string } = {},
): Promise<ClaimedJob[]> {
  const res = await store.commit(options.queue ?? 'default', [], {
    workerId: options.workerId ?? 'w',
    max: options.max ?? 1,
    leaseMs: options.leaseMs ?? 30_000,
    loadMachines: [],
  });
  return res.claimed;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const DONE_LOG = ['{"type":"done"}'];
