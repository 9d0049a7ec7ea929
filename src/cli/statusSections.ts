// What `machinist status` shows beyond the record's fields: the active states as a tree, the
// pending timers (a pipeline's `after` and delayed events, a retry's or a delayed start's due
// time, a parked job's wake-up) with countdowns, the events the state accepts, and the last
// audit entries.

import { storedTimersOf, type PendingTimerView } from '../pipeline/timers.js';
import type { AuditEntry, JobRecord } from '../store/types.js';
import { time } from './format.js';

/** The state value as an indented tree, one state per line. */
export function stateTree(value: unknown, indent = ''): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object') return [`${indent}${JSON.stringify(value).replace(/^"|"$/g, '')}`];
  const entries = Object.entries(value as Record<string, unknown>);
  const parallel = entries.length > 1;
  return entries.flatMap(([key, sub]) => [
    `${indent}${key}${parallel ? '  (region)' : ''}`,
    ...stateTree(sub, `${indent}  `),
  ]);
}

export interface PendingTimer {
  what: string;
  dueAt: number;
}

const AFTER = /^xstate\.after\.(.+?)\.([^.]+(?:\.[^.]+)*)$/;

/** Timers the job waits on, soonest first. */
export function pendingTimers(job: JobRecord): PendingTimer[] {
  const out: PendingTimer[] = [];
  // A record read over HTTP has no snapshot: the API serves its timers beside it.
  const stored = (job as { timers?: PendingTimerView[] }).timers ?? storedTimersOf(job.snapshot);
  if (job.status !== 'done' && job.status !== 'failed' && job.status !== 'cancelled') {
    for (const t of stored) {
      const type = t.event;
      const after = AFTER.exec(type);
      // An `after` event names its delay and its state: xstate.after.<delay>.<state id>.
      const what = after
        ? `after ${/^\d+$/.test(after[1]!) ? `${after[1]} ms` : after[1]} in ${after[2]}`
        : `delayed ${type}${t.target ? ` to ${t.target}` : ''}`;
      out.push({ what, dueAt: t.dueAt });
    }
    if (job.runAt && job.status === 'queued')
      out.push({
        what: job.attempts > 0 ? `retry (attempt ${job.attempts})` : 'delayed start',
        dueAt: job.runAt,
      });
    else if (job.runAt && job.status === 'waiting' && !out.some((t) => t.dueAt === job.runAt))
      out.push({ what: 'wake-up', dueAt: job.runAt });
  }
  return out.sort((a, b) => a.dueAt - b.dueAt);
}

/** `in 4s`, `in 2h 5m`, `5s overdue`. */
export function countdown(dueAt: number, now: number): string {
  const ms = dueAt - now;
  const s = Math.round(Math.abs(ms) / 1000);
  const text =
    s < 60
      ? `${s}s`
      : s < 3600
        ? `${Math.floor(s / 60)}m ${s % 60}s`
        : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return ms >= 0 ? `in ${text}` : `${text} overdue`;
}

export function auditLine(e: AuditEntry): string {
  const { at, type, ...rest } = e;
  const extra = Object.keys(rest).length ? `  ${JSON.stringify(rest)}` : '';
  return `${time(at)}  ${type}${extra}`;
}

export interface StatusExtras {
  log: AuditEntry[];
  nextEvents: string[] | null;
  now: number;
  lastEvents: number;
}

/** The sections printed under the record's fields. */
export function statusSections(job: JobRecord, x: StatusExtras): string[] {
  const lines: string[] = [];
  const tree = stateTree(job.state);
  lines.push('states');
  lines.push(...(tree.length ? tree.map((l) => `  ${l}`) : ['  -']));
  const timers = pendingTimers(job);
  lines.push('timers');
  lines.push(
    ...(timers.length
      ? timers.map((t) => `  ${t.what}: due ${time(t.dueAt)} (${countdown(t.dueAt, x.now)})`)
      : ['  none']),
  );
  if (x.nextEvents !== null)
    lines.push('accepts', `  ${x.nextEvents.length ? x.nextEvents.join(', ') : 'no events'}`);
  const last = x.log.slice(-x.lastEvents);
  lines.push(`last events${x.log.length > last.length ? ` (${last.length} of ${x.log.length})` : ''}`);
  lines.push(...last.map((e) => `  ${auditLine(e)}`));
  return lines;
}
