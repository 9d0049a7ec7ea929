// The context as it was after an entry of the audit log, rebuilt from what the `state` entries
// carry (src/pipeline/contextLog.ts): the last whole `context` at or before the entry, then each
// later entry's changes (`ctx`, `ctxGone`). From the last `state` entry on, the job has stayed in
// that state: its record's context is the one to show. Undefined when the log holds no context
// for that moment (a simple job, or a log written before states carried their context).

import type { AuditEntry } from '../store/types.js';

export function contextAt(log: readonly AuditEntry[], at: number, current: unknown): unknown {
  let lastState = -1;
  for (let i = log.length - 1; i >= 0; i--) {
    if (log[i]!.type === 'state') {
      lastState = i;
      break;
    }
  }
  if (at >= lastState) return current;
  let base = -1;
  for (let i = at; i >= 0; i--) {
    if (log[i]!.type === 'state' && 'context' in log[i]!) {
      base = i;
      break;
    }
  }
  if (base < 0) return undefined;
  let context = structuredClone(log[base]!.context);
  for (let i = base + 1; i <= at; i++) {
    const e = log[i]!;
    if (e.type !== 'state') continue;
    if ('context' in e) context = structuredClone(e.context);
    if (typeof context !== 'object' || context === null || Array.isArray(context)) continue;
    const obj = context as Record<string, unknown>;
    if (e.ctx && typeof e.ctx === 'object') Object.assign(obj, e.ctx);
    if (Array.isArray(e.ctxGone)) for (const k of e.ctxGone) delete obj[String(k)];
  }
  return context;
}
