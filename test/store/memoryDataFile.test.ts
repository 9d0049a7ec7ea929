// MemoryStore's data file: the jobs of a process killed with SIGKILL are all there when a new
// store opens the file (done, parked, delayed), and the job it was running is requeued and run
// again; the file is replaced atomically; a file that is not one is refused with a clear error.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Client, Supervisor, defineJob } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { dataFileJobs } from '../fixtures/memoryDataJobs.js';
import { TSX } from '../support/tsx.js';

const worker = fileURLToPath(new URL('../fixtures/memoryDataWorker.ts', import.meta.url));

describe('MemoryStore with a data file', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'f-memdata-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every job across a SIGKILL of its process, and runs them on in the next one', async () => {
    const file = join(dir, 'jobs.json');
    const child = spawn(process.execPath, [...TSX, worker, file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    while (!out.includes('\n')) await once(child.stdout, 'data');
    child.kill('SIGKILL');
    await once(child, 'exit');
    const ids = JSON.parse(out) as { done: string; parked: string; delayed: string; running: string };

    let resumed = 0;
    const jobs = [...dataFileJobs(), defineJob({ name: 'slow', work: async () => `resumed ${++resumed}` })];
    const store = new MemoryStore({ dataFile: file });
    const client = new Client({ store, jobs });
    const before = await Promise.all([ids.done, ids.parked, ids.delayed].map((id) => client.get(id)));
    assert.deepEqual(
      before.map((j) => [j?.status, j?.output]),
      [
        ['done', 42],
        ['waiting', null],
        ['queued', null],
      ],
    );
    assert.ok(before[2]!.runAt! > Date.now() + 3500_000, 'the delayed job keeps its run-at time');

    const sup = new Supervisor({ store, jobs, logger: pino({ level: 'silent' }), reaperIntervalMs: 100 });
    await sup.start();
    try {
      // The job the killed process was running: its lease belonged to a dead process.
      const rerun = await client.waitForResult(ids.running, { timeoutMs: 10_000 });
      assert.deepEqual([rerun.status, rerun.output, rerun.leaseRequeues], ['done', 'resumed 1', 1]);
      await client.send(ids.parked, { type: 'APPROVE', by: 'ana' });
      const approved = await client.waitForResult(ids.parked, { timeoutMs: 10_000 });
      assert.deepEqual(approved.output, {
        outcome: 'published',
        by: 'ana',
        url: 'https://docs.example/doc-1',
      });
    } finally {
      await sup.stop({ graceMs: 0 });
      client.close();
      await store.close();
    }
    const reopened = new MemoryStore({ dataFile: file });
    assert.equal((await reopened.getJob(ids.parked))?.status, 'done', 'close() wrote the last changes');
    await reopened.close();
    assert.deepEqual(readdirSync(dir), ['jobs.json'], 'no temporary file is left beside it');
  });

  it("keeps a queue's partition count in the data file", async () => {
    const file = join(dir, 'partitions.json');
    const store = new MemoryStore({ dataFile: file });
    await new Client({ store }).configureQueue('q', { partitions: 4 });
    await store.close();
    const reopened = new MemoryStore({ dataFile: file });
    assert.equal(await reopened.partitions('q'), 4);
    assert.equal(await reopened.partitions('other'), 1);
    await reopened.close();
  });

  it('refuses a file that is not a data file, naming it', () => {
    const file = join(dir, 'not-data.json');
    writeFileSync(file, '{"half": ');
    assert.throws(
      () => new MemoryStore({ dataFile: file }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'BAD_DATA_FILE');
        assert.match(err.message, /not-data\.json/);
        return true;
      },
    );
  });

  // Valid JSON of the wrong shape: each case names the field that is wrong, never a raw TypeError.
  const queue = (over: Record<string, unknown>) => ({
    format: 1,
    queueSet: ['q'],
    machines: [],
    queues: [
      {
        name: 'q',
        seq: 0,
        tok: 0,
        eventSeq: 0,
        events: [],
        jobs: [],
        index: {},
        brokenWhy: [],
        fans: [],
        children: [],
        idempotency: [],
        ...over,
      },
    ],
  });
  for (const [field, doc] of [
    ['queues[0].jobs', queue({ jobs: 5 })],
    ['queues[0].jobs[0].id', queue({ jobs: [{ status: 'queued' }] })],
    ['queues[0].index.queued', queue({ index: { queued: 'x' } })],
    ['queues[0].brokenWhy', queue({ brokenWhy: null })],
    ['queues[0].fans[0]', queue({ fans: [{}] })],
    ['queues[0].children[0][1].ids', queue({ children: [['p', {}]] })],
    ['queues[0].hooks.hooked', queue({ hooks: { due: [], chains: [], meta: [], cursor: '0' } })],
    ['machines[0].name', { ...queue({}), machines: [{}] }],
    ['queueSet', { ...queue({}), queueSet: 'q' }],
    ['partitions[0]', { ...queue({}), partitions: [['q']] }],
  ] as const)
    it(`refuses a data file whose ${field} has the wrong shape, naming that field`, () => {
      const file = join(dir, 'wrong-shape.json');
      writeFileSync(file, JSON.stringify(doc));
      assert.throws(
        () => new MemoryStore({ dataFile: file }),
        (err: Error & { code?: string; field?: string }) => {
          assert.equal(err.code, 'BAD_DATA_FILE', `${err.name}: ${err.message}`);
          assert.equal(err.field, field);
          assert.ok(err.message.includes(field) && err.message.includes('wrong-shape.json'), err.message);
          return true;
        },
      );
    });
});
