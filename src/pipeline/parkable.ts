// When may a pipeline give up its worker slot? When nothing in its actor tree is running code:
// every live actor is a machine waiting for an event or a timer, or a wait the store itself
// completes (a fan-out to child jobs). A running promise, callback or observable keeps it here.

import type { AnyActorRef } from 'xstate';

/** Logic objects the store completes while the job is parked (registered by fanOut). */
export const storeCompletedLogic = new WeakSet<object>();

export function isMachineLogic(logic: unknown): boolean {
  return typeof (logic as { getStateNodeById?: unknown })?.getStateNodeById === 'function';
}

export function isParkable(ref: AnyActorRef): boolean {
  const snap = ref.getSnapshot() as { status?: string; children?: Record<string, AnyActorRef> };
  if (snap?.status !== 'active') return true;
  for (const child of Object.values(snap.children ?? {})) {
    if (!child) continue;
    const logic = (child as { logic?: object }).logic;
    const status = (child.getSnapshot() as { status?: string })?.status;
    if (status !== 'active') continue;
    if (logic && storeCompletedLogic.has(logic)) continue;
    if (!isMachineLogic(logic) || !isParkable(child)) return false;
  }
  return true;
}
