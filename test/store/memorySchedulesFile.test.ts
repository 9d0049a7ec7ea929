// MemoryStore's data file keeps its schedules: body, revision and due time come back in the next
// store that opens the file, and so do its state and recent actions (a file written before they
// were kept apart reads them as none: the body is then the whole schedule).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';

describe('MemoryStore data file: schedules', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'f-memsched-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps each schedule, its revision and its due time across a reopen', async () => {
    const file = join(dir, 'data.json');
    const a = new MemoryStore({ dataFile: file, flushMs: 0 });
    await a.putSchedule('nightly', '{"x":1}', 12345);
    await a.putSchedule('nightly', '{"x":2}', 23456, 1, false, { state: '{"s":1}', actions: ['{"a":1}'] });
    await a.putSchedule('paused', '{"x":3}', null);
    await a.close();
    const b = new MemoryStore({ dataFile: file });
    try {
      assert.deepEqual(await b.listSchedules(), [
        { id: 'nightly', body: '{"x":2}', state: '{"s":1}', recent: ['{"a":1}'], rev: 2, dueAt: 23456 },
        { id: 'paused', body: '{"x":3}', state: null, recent: [], rev: 1, dueAt: null },
      ]);
      assert.equal((await b.claimSchedules(10, 1000)).due[0]?.id, 'nightly');
    } finally {
      await b.close();
    }
  });
});
