// A pipeline's stored machine snapshot (`w`) and timers (`t`), as text and back: each part its
// own value codec text (valueCodec.ts: a Date in the context comes back a Date), read in either
// form of store/storedMachine.ts (XState's defaults put back where a compact form left them
// out). Every write and read of `w` / `t` by the pipeline runtime goes through here.

import { compactMachine, compactTimers, fullMachine, fullTimers } from '../store/storedMachine.js';
import { reviveValue } from '../store/valueCodec.js';
import { toStoredJson } from '../runtime/storedJson.js';
import type { StoredTimer } from './timers.js';

/**
 * Whether `w` and `t` are written compact. NOT YET: a worker of data format 1 before this one
 * (main at 97ee128) cannot restore a compact snapshot (XState's restoreSnapshot reads
 * `children`; its timers lose their source and event), and fails the job for good
 * (UNRESTORABLE_SNAPSHOT), so in a fleet mixing both versions a park written compact loses
 * the job. This version reads both forms; writing compact (~110 B less per parked pipeline:
 * 2,436 -> 2,257 B per parked job, bench/probes/parkedMemory.ts at 10k) waits for a data-format
 * version whose migration stops the older workers first (docs/data-format.md).
 */
const COMPACT_WRITES = false;

/** The stored text of a machine's persisted snapshot. Throws UnserializableSnapshotError. */
export function storedMachineJson(persisted: unknown): string {
  return toStoredJson(COMPACT_WRITES ? compactMachine(persisted) : persisted, 'snapshot', '');
}

/** The stored text of a run's timers. Throws UnserializableSnapshotError. */
export function storedTimersJson(timers: readonly StoredTimer[]): string {
  if (timers.length === 0) return '[]';
  return toStoredJson(COMPACT_WRITES ? compactTimers(timers) : timers, 'snapshot', 't');
}

/** The persisted snapshot XState restores, from a stored `w` (parsed JSON; undefined: none). */
export function machineFromStored(w: unknown): unknown {
  return fullMachine(reviveValue(w));
}

/** The timers a stored `t` (parsed JSON) holds, in either form. */
export function timersFromStored(t: unknown): StoredTimer[] {
  return (fullTimers(reviveValue(t)) as StoredTimer[] | undefined) ?? [];
}
