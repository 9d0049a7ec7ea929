// Questions about the oracle's lines that several fault families ask: which jobs a worker held,
// when a job was claimed again, what a job's audit log says happened after a moment.

import type { AuditEntry } from '../src/index.js';
import type { OracleLine } from './oracle.js';

export interface Held {
  id: string;
  token: string;
  claimedAt: number;
}

/**
 * The jobs `pid` held at `t`: claimed by it before `t` (K) and not ended by a write of the
 * same token (C, F, R) before `t`. A checkpoint does not end a run; a park does (F park).
 */
export function heldAt(lines: OracleLine[], pid: number, t: number): Held[] {
  const held = new Map<string, Held>();
  for (const l of lines) {
    if (l.kind === 'K' && Number(l.f[2]) === pid && Number(l.f[3]) <= t)
      held.set(l.f[1]!, { id: l.f[0]!, token: l.f[1]!, claimedAt: Number(l.f[3]) });
  }
  for (const l of lines) {
    if ((l.kind === 'C' || l.kind === 'F' || l.kind === 'R') && Number(l.f[2]) === pid) {
      if (writeTimes(l).at <= t) held.delete(l.f[1]!);
    }
  }
  return [...held.values()];
}

/** When a write line (C, F, P, R) was read back (`at`) and when its commit was sent (`sent`). */
export function writeTimes(l: OracleLine): { at: number; sent: number } {
  const i = l.kind === 'C' ? 3 : 4;
  return { at: Number(l.f[i]), sent: Number(l.f[i + 1]) };
}

/** The first claim of `id` after `t` by a worker other than `pid` (K lines), or undefined. */
export function claimedAgain(lines: OracleLine[], id: string, pid: number, t: number): number | undefined {
  let first: number | undefined;
  for (const l of lines) {
    if (l.kind !== 'K' || l.f[0] !== id || Number(l.f[2]) === pid) continue;
    const at = Number(l.f[3]);
    if (at >= t && (first === undefined || at < first)) first = at;
  }
  return first;
}

/** The first entry of `type` at or after `t` in a job's audit log. */
export function entryAfter(log: AuditEntry[] | undefined, type: string, t: number): AuditEntry | undefined {
  return log?.find((e) => e.type === type && e.at >= t);
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
