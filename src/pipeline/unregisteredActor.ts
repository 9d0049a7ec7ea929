// A spawn of a name not registered in `setup({ actors })` that no check at definePipeline could
// see (checkMachine.ts) shows at run time in one of two ways, each turned here into the job's
// UnregisteredActorError (non-retryable: the job fails at once, the worker goes on):
//   spawn('ghost') in an assign   XState throws "Actor logic 'ghost' not implemented in machine
//                                 '<id>'", which errors the machine (retryable, as any error);
//   spawnChild('ghost') enqueued  XState leaves `children[id]` undefined, and the next
//                                 getPersistedSnapshot throws a TypeError on it.

import type { AnyActorRef } from 'xstate';
import { UnregisteredActorError } from '../errors.js';

const HINT = 'register it in setup({ actors }) or spawn a name that is';
const NOT_IMPLEMENTED = /^Actor logic '(.*)' not implemented in machine '(.*)'$/;

/** The error a machine errored with, as the job's error: XState's unregistered spawn made clear. */
export function pipelineError(err: unknown): unknown {
  const m = err instanceof Error ? NOT_IMPLEMENTED.exec(err.message) : null;
  if (!m) return err;
  return new UnregisteredActorError(
    `machine '${m[2]}' spawns '${m[1]}', which is not registered in setup({ actors }) (${HINT})`,
    {},
    { cause: err },
  );
}

/** The path of the first child slot a spawn of an unregistered name left empty, if any. */
function emptyChild(snapshot: unknown, path: string): string | undefined {
  const children = (snapshot as { children?: Record<string, AnyActorRef | undefined> } | undefined)?.children;
  if (!children) return undefined;
  for (const id of Object.keys(children)) {
    const child = children[id];
    const here = `${path}children.${id}`;
    if (!child) return here;
    const deeper = emptyChild(child.getSnapshot?.(), `${here}.snapshot.`);
    if (deeper) return deeper;
  }
  return undefined;
}

/** Throws UnregisteredActorError when a live machine snapshot holds a child no name made. */
export function assertNoEmptyChild(snapshot: unknown): void {
  const path = emptyChild(snapshot, '');
  if (!path) return;
  const id = path.slice(path.lastIndexOf('.') + 1);
  throw new UnregisteredActorError(
    `child '${id}' was spawned from a name not registered in setup({ actors }), at ${path} (${HINT}); no worker could run or restore it`,
    { field: path },
  );
}
