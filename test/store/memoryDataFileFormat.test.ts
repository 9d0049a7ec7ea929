// The MemoryStore data file carries the data format's version (`format`, src/store/storeFormat.ts)
// as Redis does (`<prefix>:format`, storeFormat.test.ts): a newer file is refused with
// STORE_FORMAT_NEWER before anything is read, an older one (no `format`: format 0) is upgraded
// on load and written back at the current version.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { setup } from 'xstate';
import { Client, StoreFormatError, Supervisor, defineJob, definePipeline } from '../../src/index.js';
import { fullMachine, fullTimers } from '../../src/store/storedMachine.js';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { STORE_FORMAT } from '../../src/store/storeFormat.js';
import { eventually } from '../support/redis.js';

const echo = defineJob({ name: 'echo', work: async ({ input }: { input: { n: number } }) => input.n });

/** Parks on a durable `after` timer until `at`, then ends with its context's `n`. */
const parkUntil = definePipeline({
  name: 'parkUntil',
  machine: setup({
    types: { input: {} as { at: number; n: number }, context: {} as { at: number; n: number } },
    delays: { due: ({ context }) => Math.max(0, context.at - Date.now()) },
  }).createMachine({
    initial: 'parked',
    context: ({ input }) => input,
    states: { parked: { after: { due: 'end' } }, end: { type: 'final' } },
    output: ({ context }) => context.n,
  }),
});

describe('MemoryStore data file: the format version', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'f-memformat-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A file written by today's store holding one queued job: its document and the job's id. */
  async function written(name: string): Promise<{ file: string; doc: Record<string, unknown>; id: string }> {
    const file = join(dir, name);
    const store = new MemoryStore({ dataFile: file });
    const id = await new Client({ store, jobs: [echo] }).enqueue('echo', { n: 3 });
    await store.close();
    return { file, doc: JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>, id };
  }

  it('writes the current format', async () => {
    const { doc } = await written('current.json');
    assert.equal(doc.format, STORE_FORMAT);
  });

  it('refuses a file of a newer format with STORE_FORMAT_NEWER naming both versions and the file', async () => {
    const { file, doc } = await written('newer.json');
    writeFileSync(file, JSON.stringify({ ...doc, format: STORE_FORMAT + 1 }));
    assert.throws(
      () => new MemoryStore({ dataFile: file }),
      (err: StoreFormatError) => {
        assert.ok(err instanceof StoreFormatError);
        assert.equal(err.code, 'STORE_FORMAT_NEWER');
        assert.equal(err.stored, STORE_FORMAT + 1);
        assert.equal(err.current, STORE_FORMAT);
        assert.match(err.message, /newer\.json/);
        return true;
      },
    );
  });

  it('upgrades a file without a format (format 0) on load, keeps its jobs and writes it back current', async () => {
    const { file, doc, id } = await written('older.json');
    const { format: _, ...unversioned } = doc;
    writeFileSync(file, JSON.stringify(unversioned));
    const store = new MemoryStore({ dataFile: file });
    const client = new Client({ store, jobs: [echo] });
    assert.equal((await client.get(id))?.status, 'queued');
    await client.enqueue('echo', { n: 4 });
    await store.close();
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { format: number }).format, STORE_FORMAT);
  });

  it('refuses a format that is not a version with BAD_DATA_FILE', async () => {
    const { file, doc } = await written('bad.json');
    writeFileSync(file, JSON.stringify({ ...doc, format: 'one' }));
    assert.throws(() => new MemoryStore({ dataFile: file }), { code: 'BAD_DATA_FILE' });
  });

  it('a file of format 1 with a pipeline parked in the full form: upgraded on load, the pipeline resumes', async () => {
    const file = join(dir, 'parked1.json');
    const logger = pino({ level: 'silent' });
    const first = new MemoryStore({ dataFile: file });
    const sup1 = new Supervisor({ store: first, jobs: [parkUntil], logger });
    await sup1.start();
    const id = await new Client({ store: first, jobs: [parkUntil] }).enqueue('parkUntil', {
      at: Date.now() + 1_000,
      n: 5,
    });
    await eventually(async () => (await first.getJob(id))?.status === 'waiting');
    await sup1.stop();
    await first.close();
    // The file as format 1 wrote it: the parked snapshot with XState's default fields in full.
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      format: number;
      queues: { jobs: { id: string; snapshot?: string }[] }[];
    };
    const job = doc.queues.flatMap((q) => q.jobs).find((j) => j.id === id)!;
    const sn = JSON.parse(job.snapshot!) as { w: unknown; t: unknown[] };
    assert.doesNotMatch(job.snapshot!, /historyValue/, 'format 2 writes it compact');
    job.snapshot = JSON.stringify({ w: fullMachine(sn.w), t: fullTimers(sn.t) });
    assert.match(job.snapshot, /"historyValue":\{\}.*"children":\{\}.*"source":""/);
    writeFileSync(file, JSON.stringify({ ...doc, format: 1 }));

    const second = new MemoryStore({ dataFile: file });
    const client = new Client({ store: second, jobs: [parkUntil] });
    const sup2 = new Supervisor({ store: second, jobs: [parkUntil], logger });
    await sup2.start();
    try {
      const done = await client.waitForResult(id, { timeoutMs: 10_000 });
      assert.equal(done.status, 'done', JSON.stringify(done.error));
      assert.equal(done.output, 5);
    } finally {
      await sup2.stop();
      await second.close();
    }
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { format: number }).format, STORE_FORMAT);
  });
});
