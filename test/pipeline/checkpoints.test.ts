import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, RedisStore } from '../../src/index.js';
import { ingestPipeline } from '../../machines/ingest.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { killFixture, spawnFixture, type Fixture } from '../support/spawnFixture.js';

describe('pipeline checkpoints', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('resumes at step 3 on another worker after a SIGKILL during step 3; steps 1 and 2 do not run again', async () => {
    const prefix = uniquePrefix('ckpt');
    const runLog = join(mkdtempSync(join(tmpdir(), 'machinist-')), 'runs.log');
    writeFileSync(runLog, '');
    const store = new RedisStore({ url: redis.url, prefix });
    const client = new Client({
      store,
      jobs: [ingestPipeline({ fetchDocument: async () => '', indexDocument: async () => '' })],
    });
    const env = { REDIS_URL: redis.url, PREFIX: prefix, RUN_LOG: runLog };
    const workers: Fixture[] = [];
    try {
      const first = spawnFixture('ingestWorker.ts', { ...env, HANG_AT_INDEX: '1' });
      workers.push(first);
      await first.ready;
      const id = await client.enqueue('ingest', { url: 'u1' });
      await first.printed('INDEXING');
      // Step 3 may start before the checkpoint that entered it lands (checkpoints are pipelined,
      // not awaited): the kill must come after it, or steps 1 and 2 would rightly run again.
      await eventually(async () => (await client.get(id))?.state === 'indexing');
      process.kill(first.child.pid!, 'SIGKILL');
      const second = spawnFixture('ingestWorker.ts', { ...env, HANG_AT_INDEX: '0' });
      workers.push(second);
      const done = await client.waitForResult(id, { timeoutMs: 10_000 });
      assert.equal(done.status, 'done');
      assert.deepEqual(done.output, { url: 'u1', title: 'Doc u1', words: 5, indexId: 'idx-5' });
      const runs = readFileSync(runLog, 'utf8').trim().split('\n');
      const fetches = runs.filter((l) => l.startsWith('fetch'));
      const indexes = runs.filter((l) => l.startsWith('index'));
      assert.equal(fetches.length, 1, runs.join('\n'));
      assert.equal(indexes.length, 2, runs.join('\n'));
      // The re-run of step 3 carries the same idempotency key as the run that was killed.
      assert.equal(indexes[0]!.split(' ')[1], indexes[1]!.split(' ')[1]);
      assert.equal(indexes[0]!.split(' ')[1], `${id}:index:1`);
      assert.ok((await client.events(id)).some((e) => e.type === 'lease-requeued'));
    } finally {
      // Even when an assertion failed: a live worker would keep this test process running.
      for (const w of workers) killFixture(w.child);
      client.close();
      await store.close();
    }
  });
});
