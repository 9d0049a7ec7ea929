// A MemoryStore whose data file cannot be written (its directory removed, the disk full) must not
// go on acknowledging writes it cannot keep: it logs, answers /healthz 503, refuses writes with
// DATA_FILE_UNWRITABLE, and takes them again by itself once a retry of the write succeeds.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Client, createServer, defineJob, Supervisor } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { eventually } from '../support/redis.js';

describe('MemoryStore data file that cannot be written', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'f-memwrite-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses writes while its file cannot be written, says so on /healthz, and takes them again once it can', async () => {
    const sub = join(dir, 'data');
    mkdirSync(sub);
    const file = join(sub, 'jobs.json');
    const logged: string[] = [];
    const logger = { error: (_o: unknown, msg: string) => logged.push(msg), info: () => {} };
    const store = new MemoryStore({ dataFile: file, flushMs: 5, logger });
    const jobs = [
      defineJob({ name: 'double', work: async ({ input }: { input: { n: number } }) => input.n * 2 }),
    ];
    const client = new Client({ store, jobs });
    const app = createServer({ store, auth: false, logger: pino({ level: 'silent' }) });
    const health = async () => (await app.inject({ method: 'GET', url: '/healthz' })).statusCode;
    try {
      const a = await client.enqueue('double', { n: 1 });
      await store.flush();
      rmSync(sub, { recursive: true });
      // Acknowledged before its write was tried: the one write a failure can catch out.
      const b = await client.enqueue('double', { n: 2 });
      await eventually(async () => (await health()) === 503, 5000);
      await assert.rejects(client.enqueue('double', { n: 3 }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'DATA_FILE_UNWRITABLE');
        assert.ok(err.message.includes(file), err.message);
        return true;
      });
      assert.ok(
        logged.some((m) => m.includes(file)),
        `the failure is logged: ${JSON.stringify(logged)}`,
      );
      const body = (await app.inject({ method: 'GET', url: '/healthz' })).json();
      assert.equal(body.error.code, 'DATA_FILE_UNWRITABLE');

      mkdirSync(sub);
      await eventually(async () => (await health()) === 200, 5000);
      const d = await client.enqueue('double', { n: 4 });
      assert.equal(
        JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid,
        process.pid,
        'the lock file, gone with its directory, is back',
      );
      await app.close();
      client.close();
      await store.close();
      const reopened = new MemoryStore({ dataFile: file });
      try {
        const kept = await Promise.all([a, b, d].map(async (id) => (await reopened.getJob(id))?.id));
        assert.deepEqual(kept, [a, b, d], 'every acknowledged job is in the file');
      } finally {
        await reopened.close();
      }
    } finally {
      await app.close();
      client.close();
      await store.close().catch(() => {});
    }
  });

  it('lets a running job finish once the file can be written again: its refused commit is retried, not treated as a bad write', async () => {
    const sub = join(dir, 'worker');
    mkdirSync(sub);
    const file = join(sub, 'jobs.json');
    const logger = { error: () => {}, info: () => {} };
    const store = new MemoryStore({ dataFile: file, flushMs: 5, logger });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const jobs = [
      defineJob({
        name: 'gated',
        work: async ({ input }: { input: { n: number } }) => {
          await gate;
          return input.n * 2;
        },
      }),
    ];
    const sup = new Supervisor({ store, jobs, logger: pino({ level: 'silent' }) });
    await sup.start();
    const client = new Client({ store, jobs });
    try {
      const id = await client.enqueue('gated', { n: 21 });
      await eventually(async () => (await client.get(id))?.status === 'working');
      await store.flush();
      rmSync(sub, { recursive: true });
      // A write tried and failed: the store takes no more until the file is back.
      await store.registerQueue('another');
      await assert.rejects(store.flush(), { code: 'DATA_FILE_UNWRITABLE' });
      release();
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await client.get(id))?.status, 'working', 'its end is not taken while it cannot be kept');
      mkdirSync(sub);
      const done = await client.waitForResult(id, { timeoutMs: 10_000 });
      assert.deepEqual([done.status, done.output], ['done', 42]);
    } finally {
      await sup.stop({ graceMs: 0 });
      client.close();
      await store.close().catch(() => {});
    }
  });
});
