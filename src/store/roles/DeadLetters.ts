// ROLE DeadLetters (required): the failed jobs a queue keeps apart (dead letters: failed past
// their attempts; broken: could not run at all), and redriving or purging them.
// Argument order, in every role: a call on a queue's work takes `queue` first; a call on one job
// takes the job's id first, then `queue`, the locator that finds it (types.ts lists the exceptions).

import type { BrokenEntry, DeadLetter } from '../deadLetter.js';

export interface DeadLetters {
  /** The newest `limit` dead letters of a queue. */
  deadLetters(queue: string, limit: number): Promise<DeadLetter[]>;
  /** The newest `limit` broken jobs (and ingress entries) of a queue, with why. */
  broken(queue: string, limit: number): Promise<BrokenEntry[]>;
  /** Queues a dead letter again with fresh attempts, atomically; JOB_NOT_FOUND when it is none. */
  retryDeadLetter(id: string, queue?: string): Promise<void>;
  /** Purges one dead-lettered or broken job (it then expires like a finished job); false when it is neither. */
  purgeDeadLetter(id: string, queue?: string): Promise<boolean>;
  /** Purges every dead letter of a queue; says how many. */
  purgeDeadLetters(queue: string): Promise<number>;
}
