// How attempts end besides success, for any backend under the real runtime: the error a done job
// keeps (none), retry-laters that grow and are bounded (`retry.retryLater`), and an attempt that
// stops reporting progress (`stallTimeoutMs`). What the store keeps (the error field, the count of
// retry-laters) must hold on RedisStore and MemoryStore alike.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Client, Supervisor, defineJob } from '../../../src/index.js';
import type { AnyDefinition } from '../../../src/runtime/registry.js';
import type { Store } from '../../../src/store/types.js';
import type { StoreFactory } from './storeFactory.js';

const FAST = { leaseMs: 2000, heartbeatMs: 500, reaperIntervalMs: 200 } as const;

export function retryCases(factory: StoreFactory): void {
  /** A fresh store with a running supervisor and a client, stopped at the end whatever happens. */
  const test = (
    name: string,
    jobs: AnyDefinition[],
    fn: (t: { store: Store; client: Client }) => Promise<void>,
  ) =>
    void it(name, async () => {
      const store = await factory.make();
      const sup = new Supervisor({ store, jobs, concurrency: 4, logger: pino({ level: 'silent' }), ...FAST });
      const client = new Client({ store, jobs });
      try {
        await sup.start();
        await fn({ store, client });
      } finally {
        await sup.stop({ graceMs: 0 });
        client.close();
        await store.close();
      }
    });

  const flakyOnce = defineJob({
    name: 'flakyOnce',
    retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
    work: async ({ attempt }) => {
      if (attempt === 1) throw Object.assign(new Error('first try failed'), { code: 'E_FIRST' });
      return 'ok';
    },
  });
  test(
    'a job done after a failed attempt keeps no error; its audit log keeps the failed attempt’s',
    [flakyOnce],
    async ({ client }) => {
      const id = await client.enqueue('flakyOnce', {});
      const job = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.deepEqual([job.status, job.attempts], ['done', 2]);
      assert.equal(job.error, null, 'a done job has no error');
      const retried = (await client.events(id)).find((e) => e.type === 'retry-scheduled') as
        { error?: { message?: string; code?: string } } | undefined;
      assert.deepEqual(retried?.error?.message, 'first try failed', 'the history keeps it');
    },
  );
}
