// Decoders for what the scripts write in compact forms: queue stream entries (one job per entry,
// or a combined entry listing several) and audit-log fields.

import type { AuditEntry, QueueEvent } from '../types.js';
import { F } from '../recordSchema.js';
import { ungroupIds } from './idGroups.js';

type XReadReply = [string, [string, string[]][]][];

/** A combined entry (field `js`, see lua/include/emitMany.lua; or `jg`, THE IDS GROUPED of
 * idGroups.ts) is the same transition of several jobs in one script call: it becomes one event
 * per job, sharing the cursor. */
export function decodeStreamEntries(res: XReadReply): QueueEvent[] {
  const out: QueueEvent[] = [];
  for (const [, entries] of res) {
    for (const [entryId, fields] of entries) {
      const f: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      const type = f.t ?? '';
      const at = Number(f.at ?? 0);
      if (f.js !== undefined) {
        for (const jobId of f.js.split(',')) out.push({ cursor: entryId, jobId, type, status: f.s, at });
      } else if (f.jg !== undefined) {
        for (const jobId of ungroupIds(f.jg)) out.push({ cursor: entryId, jobId, type, status: f.s, at });
      } else out.push({ cursor: entryId, jobId: f.j ?? '', type, status: f.s, at });
    }
  }
  return out;
}

/**
 * Log fields hold "<at> <type>" or "<at> <JSON without at>" (see lua/include/addLog.lua). A
 * `state` entry with `then` (the states one write passed through: compactStates in
 * encodeOps.ts) is one entry per state.
 */
export function decodeLogEntry(text: string): AuditEntry[] {
  const space = text.indexOf(' ');
  const at = Number(text.slice(0, space));
  const rest = text.slice(space + 1);
  if (!rest.startsWith('{')) return [{ at, type: rest }];
  const e = { at, ...(JSON.parse(rest) as Omit<AuditEntry, 'at'>) } as AuditEntry;
  if (e.type !== 'state' || !Array.isArray(e.then)) return [e];
  const { then, ...first } = e;
  return [first, ...(then as unknown[]).map((state) => ({ at, type: 'state', state }))];
}

/**
 * The log of a job that has no `ls` field: exactly the standard start, which the scripts do not
 * write out (see "IMPLICIT LOG" in lua/include/addLog.lua): enqueued at `ca`, claimed at `ct`,
 * done at `fa` when the job is done. The entries are those a written log would hold.
 */
export function implicitLog(fields: Record<string, string>): AuditEntry[] {
  const out: AuditEntry[] = [];
  const [ca, ct, st, fa] = [fields[F.createdAt], fields[F.claimedAt], fields[F.status], fields[F.finishedAt]];
  if (ca) out.push({ at: Number(ca), type: 'enqueued' });
  if (ct) out.push({ at: Number(ct), type: 'claimed' });
  if (st === 'done' && fa) out.push({ at: Number(fa), type: 'done' });
  return out;
}
