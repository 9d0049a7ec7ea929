// The runner of the conformance cases that put the real runtime on a store (runtimeCases.ts,
// runtimeTreeCases.ts, retryCases.ts, stallCases.ts): each case gets a fresh store with a
// running Supervisor and a Client, stopped at the end whatever happens.

import { it } from 'node:test';
import { pino } from 'pino';
import { Client, Supervisor } from '../../../src/index.js';
import type { AnyDefinition } from '../../../src/runtime/registry.js';
import type { Store } from '../../../src/store/types.js';
import type { StoreFactory } from './storeFactory.js';

export interface RuntimeSettings {
  concurrency: number;
  leaseMs: number;
  heartbeatMs: number;
  reaperIntervalMs: number;
  /** THE EARLY LEASE (earlyLeaseCases.ts); absent: off. */
  leadMs?: number;
  holdMax?: number;
}

export type RuntimeTest = (
  name: string,
  jobs: AnyDefinition[],
  fn: (t: { store: Store; client: Client; sup: Supervisor }) => Promise<void>,
) => void;

export function runtimeTest(factory: StoreFactory, settings: RuntimeSettings): RuntimeTest {
  return (name, jobs, fn) =>
    void it(name, async () => {
      const store = await factory.make();
      const sup = new Supervisor({ store, jobs, logger: pino({ level: 'silent' }), ...settings });
      const client = new Client({ store, jobs });
      try {
        await sup.start();
        await fn({ store, client, sup });
      } finally {
        await sup.stop({ graceMs: 0 });
        client.close();
        await store.close();
      }
    });
}

/** Polls `fn` until it is truthy (bounded generously: no timed assertion). */
export async function eventually<T>(fn: () => Promise<T>, timeoutMs = 8000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
