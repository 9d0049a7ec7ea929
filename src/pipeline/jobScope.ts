// What a step (an invoked actor) can learn of the job it runs in. Keyed by the actor system,
// which every actor of one job's run shares, so steps need no global state.

import type { AnyActorRef } from 'xstate';

export interface JobScope {
  jobId: string;
  queue: string;
  attempt: number;
  /** The job's signal (a getter on the scope: made only when a step asks for it). */
  readonly signal: AbortSignal;
  progress: (value: unknown) => void;
  /** SURE LEASE (ActiveJob.leaseReady): undefined when a step may start now, else when it may. */
  leaseReady: () => Promise<void> | undefined;
  /** Starts (once) and awaits a fan-out of child jobs; see fanOut.ts. */
  fanOut?: (group: string, input: unknown, signal: AbortSignal) => Promise<unknown[]>;
}

const scopes = new WeakMap<object, JobScope>();

export function bindJobScope(system: object, scope: JobScope): void {
  scopes.set(system, scope);
}

export function jobScopeOf(system: object | undefined): JobScope | undefined {
  return system ? scopes.get(system) : undefined;
}

/** The invoke path of an actor: its id and those of the machine actors above it. */
export function actorPath(ref: AnyActorRef): string {
  const parts: string[] = [];
  let cur: AnyActorRef | undefined = ref;
  while (cur && (cur as { _parent?: AnyActorRef })._parent) {
    parts.unshift(cur.id);
    cur = (cur as { _parent?: AnyActorRef })._parent;
  }
  return parts.join('/');
}
