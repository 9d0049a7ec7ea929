// Offers one inbox event to a compiled run (runCompiledPipeline.ts) as the XState runtime offers
// it to its actor tree (offerEvent.ts). Apart from the driver because it answers a question the
// core asks of any driver (heldEvents.ts: taken, held, or ignored and why), from the state alone:
// it changes nothing; taking the event is the `send` it returns, which the driver supplies.

import type { AnyStateMachine } from 'xstate';
import type { InboxEvent } from '../runtime/inboxEvent.js';
import type { CompiledState, CompiledTransition, Ctx } from './compiledTable.js';
import { machineTakes, type Offered } from './heldEvents.js';
import { noTransition, whyIgnoredIn } from './whyIgnored.js';

// Events sent to the job are offered as the XState runtime offers them (offerEvent.ts): the
// root takes one its wait state (or step state, beside its invoke) has an enabled transition for (guards evaluated as XState's
// `snapshot.can`; one that throws: taken, and sending it errors the machine), and the reasons
// of one it does not take are whyIgnored's over the same state node. Its only children are
// its steps' promise actors: an event sent `to` the running step is taken (a promise actor
// takes none), one `to` any other path names no actor (held when the sender asked to wait).
export function offerCompiled(
  machine: AnyStateMachine,
  state: CompiledState,
  context: Ctx,
  msg: InboxEvent,
  /** Takes the event by the state's transitions for it (when the core sends it). */
  take: (list: CompiledTransition[]) => void,
): Offered {
  const type = msg.event.type;
  if (msg.to !== undefined) {
    if (msg.to === state.step?.invokeId) return { taken: true, send: () => {} };
    return { taken: false, missing: true, reason: `no actor at '${msg.to}'` };
  }
  // A wait state's events, or a step state's beside its invoke (taken while the step runs).
  const list = state.wait?.on.get(type) ?? state.step?.events?.get(type);
  if (list) {
    let can: boolean;
    try {
      can = list.some((t) => t.guard === null || t.guard(context, msg.event));
    } catch {
      can = true;
    }
    if (can) return { taken: true, send: () => take(list) };
  }
  const never = !machineTakes(machine, type);
  const why = list ? whyIgnoredIn(state.node, type) : noTransition(type);
  return { taken: false, missing: false, never, ...why };
}
