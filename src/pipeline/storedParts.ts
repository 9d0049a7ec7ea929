// A pipeline's stored machine snapshot (`w`) and timers (`t`), as text and back: each part its
// own value codec text (valueCodec.ts: a Date in the context comes back a Date), in the compact
// form of store/storedMachine.ts (XState's defaults left out on writing, put back on reading).
// Every write and read of `w` / `t` by the pipeline runtime goes through here.

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
  return timers.length === 0 ? '[]' : toStoredJson(compactTimers(timers), 'snapshot', 't');
}

/** The persisted snapshot XState restores, from a stored `w` (parsed JSON; undefined: none). */
export function machineFromStored(w: unknown): unknown {
  return fullMachine(reviveValue(w));
}

/** The timers a stored `t` (parsed JSON) holds. */
export function timersFromStored(t: unknown): StoredTimer[] {
  return (fullTimers(reviveValue(t)) as StoredTimer[] | undefined) ?? [];
}
