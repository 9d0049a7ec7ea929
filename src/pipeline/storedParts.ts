// A pipeline's stored machine snapshot (`w`) and timers (`t`), as text and back: each part its
// own value codec text (valueCodec.ts: a Date in the context comes back a Date), read in either
// form of store/storedMachine.ts (XState's defaults put back where a compact form left them
// out). Every write and read of `w` / `t` by the pipeline runtime goes through here.
//
// Written compact since data format 2 (~110 B less per parked pipeline). A worker of format 1
// from before this form was read (main at 97ee128 among them) cannot restore it (XState's
// restoreSnapshot reads `children`; its timers lose their source and event) and would fail the
// job for good (UNRESTORABLE_SNAPSHOT): format 2's migration is breaking, and `migrate-store`
// refuses it while a supervisor runs (docs/data-format.md). Records written in full are read as
// they are.

import { compactMachine, compactTimers, fullMachine, fullTimers } from '../store/storedMachine.js';
import { reviveValue } from '../store/valueCodec.js';
import { toStoredJson } from '../runtime/storedJson.js';
import type { StoredTimer } from './timers.js';

/** The stored text of a machine's persisted snapshot. Throws UnserializableSnapshotError. */
export function storedMachineJson(persisted: unknown): string {
  return toStoredJson(compactMachine(persisted), 'snapshot', '');
}

/** The stored text of a run's timers. Throws UnserializableSnapshotError. */
export function storedTimersJson(timers: readonly StoredTimer[]): string {
  if (timers.length === 0) return '[]';
  return toStoredJson(compactTimers(timers), 'snapshot', 't');
}

/** The persisted snapshot XState restores, from a stored `w` (parsed JSON; undefined: none). */
export function machineFromStored(w: unknown): unknown {
  return fullMachine(reviveValue(w));
}

/** The timers a stored `t` (parsed JSON) holds, in either form. */
export function timersFromStored(t: unknown): StoredTimer[] {
  return (fullTimers(reviveValue(t)) as StoredTimer[] | undefined) ?? [];
}
