// A pipeline's persisted machine snapshot, or the UnserializableSnapshotError that says why it
// cannot have one. XState's getPersistedSnapshot recurses through the context (a cycle overflows
// the stack), and its production build stores an actor spawned from inline logic as `src: {}`,
// which no worker could restore (its first checkpoint after the restore would throw): both are
// caught here, at the write, with the path to the culprit; so is a child slot a spawn of an
// unregistered name left empty (unregisteredActor.ts).

import type { AnyActorRef, AnyStateMachine } from 'xstate';
import { UnserializableSnapshotError } from '../errors.js';
import { unserializable } from '../runtime/storedJson.js';
import { storedMachineJson } from './storedParts.js';
import { assertNoEmptyChild } from './unregisteredActor.js';

interface PersistedNode {
  children?: Record<string, { src?: unknown; snapshot?: PersistedNode } | undefined>;
}

const INLINE = {
  reason: 'an inline child actor',
  hint: 'spawned from logic not registered in setup({ actors }): no worker could restore it',
};

/** An actor ref in a context: XState persists it as a reference, so it is not looked into. */
const isActorRef = (v: object) => 'sessionId' in v && 'send' in v && 'ref' in v;

/** The path of the first child actor whose logic is inline (not a registered name), if any. */
function inlineChild(node: PersistedNode | undefined, path: string): string | undefined {
  const children = node?.children;
  if (!children) return undefined;
  for (const id of Object.keys(children)) {
    const child = children[id];
    const here = `${path}children.${id}`;
    if (typeof child?.src !== 'string') return here;
    const deeper = inlineChild(child.snapshot, `${here}.snapshot.`);
    if (deeper) return deeper;
  }
  return undefined;
}

function checked(persist: () => unknown, live: unknown): unknown {
  // XState's getPersistedSnapshot would throw a bare TypeError on an empty child slot.
  assertNoEmptyChild(live);
  let persisted: unknown;
  try {
    persisted = persist();
  } catch (err) {
    const context = (live as { context?: unknown } | undefined)?.context;
    throw unserializable({ context }, 'snapshot', err, '', isActorRef);
  }
  const inline = inlineChild(persisted as PersistedNode, '');
  if (inline) throw new UnserializableSnapshotError('snapshot', { path: inline, ...INLINE });
  return persisted;
}

/** The actor's persisted snapshot (`getPersistedSnapshot`), checked to be restorable. */
export function persistedSnapshot(actor: AnyActorRef): unknown {
  return checked(() => actor.getPersistedSnapshot(), actor.getSnapshot());
}

/** A machine snapshot's persisted form (`machine.getPersistedSnapshot`), checked likewise. */
export function persistedMachineSnapshot(machine: AnyStateMachine, snapshot: unknown): unknown {
  return checked(() => machine.getPersistedSnapshot(snapshot as never), snapshot);
}

/** The actor's persisted snapshot as its stored text (storedParts.ts). */
export function persistedJson(actor: AnyActorRef): string {
  return storedMachineJson(persistedSnapshot(actor));
}

/** The error XState would raise on restoring an inline child (compiled runs, which never spawn). */
export function inlineChildError(): UnserializableSnapshotError {
  return new UnserializableSnapshotError('snapshot', INLINE);
}
