// One data file, one MemoryStore: a second process (or a second store in this one) opened on a
// file that a live process holds is refused with DATA_FILE_LOCKED naming that process, so that
// no acknowledged job is overwritten by the other's writes; a lock left by a process that died
// (SIGKILL) is taken over.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataFileLockedError } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { TSX } from '../support/tsx.js';

const enqueuer = fileURLToPath(new URL('../fixtures/memoryDataEnqueuer.ts', import.meta.url));

type Child = ChildProcessByStdio<Writable, Readable, null>;
const children: Child[] = [];

/** The enqueuer on `file`, with a reader of its JSON lines. */
function start(file: string, count: number) {
  const child = spawn(process.execPath, [...TSX, enqueuer, file, String(count)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  let buf = '';
  const lines: unknown[] = [];
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      lines.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  });
  const next = async <T>(): Promise<T> => {
    while (lines.length === 0) {
      if (child.exitCode !== null) throw new Error(`enqueuer exited ${child.exitCode}`);
      await Promise.race([once(child.stdout, 'data'), once(child, 'exit')]);
    }
    return lines.shift() as T;
  };
  return { child, next };
}

describe('MemoryStore data file lock', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'f-memlock-'))));
  after(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second process on the same data file, naming the pid that holds it; no acknowledged job is lost', async () => {
    const file = join(dir, 'two.json');
    const a = start(file, 50);
    assert.deepEqual(await a.next(), { open: true });
    const b = start(file, 50);
    const bFirst = await b.next<{ open?: true; error?: { code: string; pid: number; message: string } }>();
    // Both go at once when both opened (main): each acknowledges its 50 enqueues.
    const acked: string[] = [];
    const running = [a, ...(bFirst.open ? [b] : [])];
    for (const p of running) p.child.stdin.write('go\n');
    for (const p of running) acked.push(...(await p.next<{ ids: string[] }>()).ids);
    const store = new MemoryStore({ dataFile: file });
    try {
      const kept = await Promise.all(acked.map((id) => store.getJob(id)));
      const lost = kept.filter((j) => j === null).length;
      assert.equal(lost, 0, `${lost} of ${acked.length} acknowledged jobs are not in the data file`);
    } finally {
      await store.close();
    }
    assert.equal(bFirst.error?.code, 'DATA_FILE_LOCKED');
    assert.equal(bFirst.error.pid, a.child.pid);
    assert.match(bFirst.error.message, new RegExp(`\\b${a.child.pid}\\b`));
    assert.equal(b.child.exitCode ?? (await once(b.child, 'exit'))[0], 3);
  });

  it('refuses a second store in the same process until the first is closed', async () => {
    const file = join(dir, 'same.json');
    const first = new MemoryStore({ dataFile: file });
    assert.throws(
      () => new MemoryStore({ dataFile: file }),
      (err: unknown) => err instanceof DataFileLockedError && err.pid === process.pid,
    );
    await first.close();
    const second = new MemoryStore({ dataFile: file });
    await second.close();
  });

  it('refuses a data file in a directory it cannot write, with DATA_FILE_UNWRITABLE', () => {
    assert.throws(
      () => new MemoryStore({ dataFile: join(dir, 'no-such-dir', 'jobs.json') }),
      (err: Error & { code?: string }) => err.code === 'DATA_FILE_UNWRITABLE',
    );
  });

  it('takes over the lock of a process that died without closing its store', async () => {
    const file = join(dir, 'stale.json');
    const a = start(file, 1);
    assert.deepEqual(await a.next(), { open: true });
    assert.equal(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid, a.child.pid);
    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    const store = new MemoryStore({ dataFile: file });
    try {
      assert.equal(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid, process.pid);
    } finally {
      await store.close();
    }
  });
});
