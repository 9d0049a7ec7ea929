// ROLE Ingress (optional): jobs foreign producers wrote to a queue's ingress list
// (docs/ingress.md), for backends they can write to. RedisStore has it; MemoryStore has not
// (nothing outside its process can reach it).
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.

import type { NewJob } from '../newJob.js';
import type { WorkWaiter } from './WorkQueue.js';

/** What becomes of one ingress entry (docs/ingress.md): a job, or the broken set with a reason. */
export type IngressDecision =
  | { job: NewJob; ownId: false }
  | {
      job: NewJob;
      /**
       * The id is the producer's: an existing job of that id and machine consumes the entry; one
       * of another machine sends it to the broken set under `spareId` (ID_CONFLICT).
       */
      ownId: true;
      spareId: string;
    }
  | { id: string; reason: string };

export interface IngressDrained {
  made: number;
  broken: number;
  /** Entries whose producer-given id named an existing job of their machine (consumed, nothing made). */
  existing: number;
  /** Other supervisors kept taking the entries first; nothing was done this time. */
  contended?: boolean;
}

export interface Ingress {
  /**
   * Moves up to `max` of the oldest entries of the queue's ingress list into jobs, each as
   * `decide` says, atomically: an entry is popped in the same step that makes its job or sets
   * it aside as broken.
   */
  drainIngress(
    queue: string,
    max: number,
    /** A Promise when the machine's input schema validates asynchronously. */
    decide: (raw: Buffer) => IngressDecision | Promise<IngressDecision>,
  ): Promise<IngressDrained>;
  /** A waiter that returns when the queue's ingress list holds entries (or the timeout passes). */
  ingressWaiter(queue: string): WorkWaiter;
}

export function hasIngress<S extends object>(store: S): store is S & Ingress {
  const s = store as Partial<Ingress>;
  return typeof s.drainIngress === 'function' && typeof s.ingressWaiter === 'function';
}
