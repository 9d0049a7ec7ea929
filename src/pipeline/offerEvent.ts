// Offers one inbox event to a pipeline's actor tree: to the root, or to the child actor its `to`
// path names. A machine takes it only when its current state can (`snapshot.can`), else the
// reason is returned for the log; any other live actor (a callback) is sent it as it is.

import type { AnyActorRef } from 'xstate';
import { parseInboxEvent, type InboxEvent } from '../runtime/inboxEvent.js';
import { isMachineLogic } from './parkable.js';
import { whyIgnored } from './whyIgnored.js';
import { machineTakes, type Offered } from './heldEvents.js';

/** The actor at `to` (ids from the root, separated by '/'), or the root itself. */
export function actorAt(root: AnyActorRef, to: string | undefined): AnyActorRef | undefined {
  if (to === undefined) return root;
  let ref: AnyActorRef | undefined = root;
  for (const id of to.split('/')) {
    const snap: { children?: Record<string, AnyActorRef | undefined> } | undefined = ref?.getSnapshot();
    ref = snap?.children?.[id];
    if (!ref) return undefined;
  }
  return ref;
}

export function offerEvent(root: AnyActorRef, msg: InboxEvent): Offered {
  const target = actorAt(root, msg.to);
  const status = (target?.getSnapshot() as { status?: string } | undefined)?.status;
  if (!target || status !== 'active') {
    // The root itself not running is not a missing actor (the run offers nothing then: pipelineRun.ts).
    const reason =
      msg.to === undefined ? `the machine is not running (status '${status}')` : `no actor at '${msg.to}'`;
    return { taken: false, missing: true, reason };
  }
  if (isMachineLogic((target as { logic?: unknown }).logic)) {
    const snap = target.getSnapshot() as { can: (e: unknown) => boolean };
    let can: boolean;
    try {
      can = snap.can(msg.event);
    } catch {
      can = true; // a guard that throws: sent, it errors the machine as XState would
    }
    if (!can) {
      const logic = (target as { logic?: unknown }).logic;
      const never = !machineTakes(logic, msg.event.type);
      return { taken: false, missing: false, never, ...whyIgnored(snap, msg.event.type) };
    }
  }
  return { taken: true, send: () => target.send(msg.event) };
}

/**
 * The log entries for inbox events (as read) a machine that is no longer active was not offered.
 * The attempt's ending does not move the stored inbox position, so a retry reads and offers them
 * again; a job that fails drops its inbox with them.
 */
export function notOffered(
  texts: readonly string[],
  snapshot: { status: string; value?: unknown },
): string[] {
  const reason =
    snapshot.status === 'error'
      ? "the machine errored taking an earlier event (status 'error'): not offered in this attempt; a retry offers it again"
      : `the machine is no longer running (status '${snapshot.status}')`;
  return texts.map((text) =>
    JSON.stringify({
      type: 'event-ignored',
      event: parseInboxEvent(text)?.event.type,
      state: snapshot.value,
      reason,
    }),
  );
}
