// MemoryStore's data file: everything it holds as one JSON document, written atomically (a
// temporary file, fsync, rename over the old one, fsync of the directory), so a crash leaves
// either the previous file or the new one, never half of one. Results waiting for watchers are
// not kept (the watchers are gone with the process), and neither are leases: a job that was
// running when the file was written belongs to no live worker after a restart (its lease is due
// at once, and the first reap requeues it). Webhook deliveries that wait are kept (HookState.ts).

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { MachinistError, StoreFormatError } from '../../errors.js';
import { STORE_FORMAT, migrationsFrom } from '../storeFormat.js';
import type { MachineInfo } from '../types.js';
import type { MemoryJob } from './MemoryJob.js';
import { checkDataShape } from './dataFileShape.js';
import { FlowState } from './FlowState.js';
import { HookState } from './HookState.js';
import { INDEX_NAMES, QueueState, type FanRecord } from './QueueState.js';
import { ZSet } from './ZSet.js';
import { ScheduleTable } from './ScheduleTable.js';
import { CODE } from '../../errorCodes.js';

export interface StoreData {
  queues: Map<string, QueueState>;
  queueSet: Set<string>;
  machines: Map<string, MachineInfo>;
  /** Each partitioned queue's partition count (Registry.partitions). */
  partitions: Map<string, number>;
  /** The schedules (memorySchedules.ts). */
  schedules: ScheduleTable;
}

type JobJson = Omit<MemoryJob, 'inboxIds' | 'watchers'> & { inboxIds?: string[] };

export function encodeData(data: StoreData): string {
  const queues = [...data.queues.values()].map((q) => ({
    name: q.name,
    seq: q.seq,
    tok: q.tok,
    eventSeq: q.eventSeq,
    events: q.events,
    jobs: [...q.jobs.values()].map((j): JobJson => {
      const { inboxIds, watchers: _w, ...rest } = j;
      return inboxIds ? { ...rest, inboxIds: [...inboxIds] } : rest;
    }),
    // A lease belongs to this process's workers: after a restart it is due at once.
    index: Object.fromEntries(
      INDEX_NAMES.map((n) => [
        n,
        n === 'active' ? q.index.active.entries().map(([id]) => [id, 0]) : q.index[n].entries(),
      ]),
    ),
    brokenWhy: [...q.brokenWhy],
    fans: [...q.fans].map(([k, f]) => [k, { ...f, results: [...f.results] }]),
    children: [...q.children].map(([k, c]) => [k, { ids: c.ids.entries(), expiresAt: c.expiresAt }]),
    idempotency: [...q.idempotency],
    dedupe: [...q.dedupe],
    hooks: q.hooks.toJSON(),
    flow: q.flow.toJSON(),
  }));
  return JSON.stringify({
    format: STORE_FORMAT,
    queueSet: [...data.queueSet],
    machines: [...data.machines.values()],
    partitions: [...data.partitions],
    schedules: data.schedules.toJSON(),
    queues,
  });
}

function zset(entries: [string, number][]): ZSet {
  const z = new ZSet();
  for (const [m, s] of entries) z.add(m, s);
  return z;
}

/**
 * The file's document at STORE_FORMAT: a newer one is refused (STORE_FORMAT_NEWER); an older one
 * goes through the data file's side of each migration (storeFormat.ts MIGRATIONS) in order, and
 * is written at the current format by the next write.
 */
function upgraded(doc: any, file: string): any {
  if (typeof doc !== 'object' || doc === null || !Array.isArray(doc.queues))
    throw new MachinistError('BAD_DATA_FILE', `MemoryStore: ${file} is not a data file (no queues)`);
  const stored: unknown = doc.format ?? 0;
  if (typeof stored !== 'number' || !Number.isInteger(stored) || stored < 0)
    throw new MachinistError(
      'BAD_DATA_FILE',
      `MemoryStore: ${file} has format ${JSON.stringify(stored)}, not a version`,
      {
        field: 'format',
      },
    );
  if (stored > STORE_FORMAT)
    throw new StoreFormatError(
      'STORE_FORMAT_NEWER',
      stored,
      STORE_FORMAT,
      `the MemoryStore data file ${file}`,
    );
  for (const m of migrationsFrom(stored)) doc = FILE_STEPS[m.to]!(doc);
  return { ...doc, format: STORE_FORMAT };
}

/** The data file's side of each migration, by the version it reaches. */
export const FILE_STEPS: Readonly<Record<number, (doc: any) => any>> = {
  // 0 -> 1: a file without `format` is today's layout (checkDataShape holds it to it).
  1: (doc) => doc,
  // 1 -> 2: pipelines' snapshots are written compact from now on; one written in full is read
  // as it is, so nothing in the file changes (its lock keeps a worker of format 1 off it).
  2: (doc) => doc,
  // 2 -> 3: the ready list is the Redis layout's (a list beside the `queued` zset); the file keeps
  // one line of queued jobs, in the same order, so nothing in it changes.
  3: (doc) => doc,
  // 3 -> 4: the defaults left out are the job hash's (no `v`, `ma` when default); the file keeps
  // every job's version and max attempts as before, so nothing in it changes.
  4: (doc) => doc,
};

export function decodeData(text: string, file: string): StoreData {
  let doc: any;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new MachinistError(
      CODE.BAD_DATA_FILE,
      `MemoryStore: ${file} is not a data file (not JSON)`,
      {},
      { cause: err },
    );
  }
  doc = upgraded(doc, file);
  checkDataShape(doc, file);
  const queues = new Map<string, QueueState>();
  for (const qd of doc.queues) {
    const q = new QueueState(qd.name);
    q.seq = qd.seq;
    q.tok = qd.tok;
    q.eventSeq = qd.eventSeq;
    q.events = qd.events;
    for (const j of qd.jobs as JobJson[])
      q.jobs.set(j.id, { ...j, inboxIds: j.inboxIds ? new Set(j.inboxIds) : undefined });
    for (const n of INDEX_NAMES) q.index[n] = zset(qd.index[n] ?? []);
    for (const [k, v] of qd.brokenWhy) q.brokenWhy.set(k, v);
    for (const [k, f] of qd.fans) q.fans.set(k, { ...f, results: new Map(f.results) } as FanRecord);
    for (const [k, c] of qd.children)
      q.children.set(k, { ids: zset(c.ids), expiresAt: c.expiresAt ?? undefined });
    for (const [k, i] of qd.idempotency) q.idempotency.set(k, i);
    for (const [k, i] of qd.dedupe ?? []) q.dedupe.set(k, i);
    q.hooks = HookState.fromJSON(qd.hooks);
    // Absent in files written before the flow gate was kept.
    q.flow = FlowState.fromJSON(qd.flow);
    q.flow.slotsFrom(q.runningKeys());
    for (const j of q.jobs.values()) {
      if (j.status !== 'loading' && j.status !== 'working') continue;
      const gate = q.flow.gateOf(j.machine)?.gate;
      if (gate !== undefined)
        q.flow.gateHolders.set(gate, (q.flow.gateHolders.get(gate) ?? new Set()).add(j.id));
    }
    queues.set(q.name, q);
  }
  return {
    queues,
    queueSet: new Set(doc.queueSet),
    machines: new Map((doc.machines as MachineInfo[]).map((m) => [m.name, m])),
    // Absent in files written before queues could be partitioned.
    partitions: new Map((doc.partitions as [string, number][] | undefined) ?? []),
    // Absent in files written before schedules were kept.
    schedules: ScheduleTable.fromJSON(doc.schedules as Parameters<typeof ScheduleTable.fromJSON>[0]),
  };
}

/** The file's data, or null when there is no file yet. */
export function readDataFile(file: string): StoreData | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return decodeData(text, file);
}

const tempName = (file: string) => join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);

/** Writes `text` to `file` atomically (temp file, fsync, rename, fsync of the directory). */
export async function writeDataFile(file: string, text: string): Promise<void> {
  const tmp = tempName(file);
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  await syncDir(dirname(file));
}

/** The same, blocking: for the last write at exit. */
export function writeDataFileSync(file: string, text: string): void {
  const tmp = tempName(file);
  const fd = openSync(tmp, 'w');
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}
