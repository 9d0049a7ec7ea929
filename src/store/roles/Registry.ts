// ROLE Registry (required): what a store knows of its machines and queues, and how many jobs
// each queue's indexes hold. Registration is idempotent: supervisors repeat it on a reconnect
// and periodically, since a Redis that lost its data loses the registry with it.
// Argument order, in every role: a call on a queue's work takes `queue` first; a call on one job
// takes the job's id first, then `queue`, the locator that finds it (types.ts lists the exceptions).

import type { MachineGraph } from '../chartModel.js';

/** The indexes `counts` reports, in display order. */
export const COUNTED = [
  'queued',
  'delayed',
  'active',
  'waiting',
  'done',
  'failed',
  'cancelled',
  'dead',
  'broken',
] as const;
export type QueueCounts = Record<(typeof COUNTED)[number], number>;

export interface MachineInfo {
  name: string;
  versions: number[];
  hasLoad: boolean;
  /** The machine's definition as JSON, for drawing its chart. */
  definition?: unknown;
  /** The latest version's retry.maxAttempts, so clients without the definitions enqueue with it. */
  maxAttempts?: number;
  /** The latest version's `record` when 'minimal', so clients without the definitions enqueue with it. */
  record?: 'full' | 'minimal';
  /**
   * The latest version declares an input schema (defineJob's `input`): a client without the
   * definitions cannot check an input against it (the CLI says so).
   */
  inputSchema?: boolean;
  /**
   * Each pipeline version's fingerprint (by version): the definition its stored jobs were
   * written by. The first one registered for a version stays unless replaced on purpose.
   */
  fingerprints?: Record<string, string>;
  /**
   * Each pipeline version's chart model (by version; store/chartModel.ts), so that a process
   * without the machine's code (the CLI, the dashboard) can draw it. Merged per version like
   * `fingerprints`. Simple jobs have none: they all draw the shared lifecycle.
   */
  graphs?: Record<string, MachineGraph>;
}

export interface Registry {
  /**
   * Publishes machines in the registry (merging versions with what is there; a version's
   * fingerprint already there is kept unless `replaceFingerprints`). Idempotent.
   */
  registerMachines(machines: MachineInfo[], options?: { replaceFingerprints?: boolean }): Promise<void>;
  machines(): Promise<MachineInfo[]>;
  /**
   * How many jobs of `machine` at `version` are not finished (queued, delayed, running or
   * waiting), in every queue of the registry. Reads every such job's record: for a decision
   * made rarely (a supervisor refusing to start), not for a hot path.
   */
  countUnfinished(machine: string, version: number): Promise<number>;
  /** Adds a queue to the set `queues()` lists (idempotent, like registerMachines). */
  registerQueue(queue: string): Promise<void>;
  queues(): Promise<string[]>;
  /** Takes a queue off the set `queues()` lists (Client.forgetQueue checks it is empty first). */
  forgetQueue(queue: string): Promise<void>;
  /**
   * How many partitions `queue` is split into (1: none, the default); kept per queue, so every
   * client and supervisor routes alike (docs/partitions.md).
   */
  partitions(queue: string): Promise<number>;
  /** Records the partition count (Client.configureQueue checks the queue is empty first). */
  setPartitions(queue: string, partitions: number): Promise<void>;
  /**
   * Copies `queue`'s live idempotency keys, each with its remaining TTL and the job it names, to
   * the queue `to(key)` returns, where that key is not set already; resolves with how many were
   * copied. For partitioning a populated queue (store/partitionPopulated.ts): a repeat of an
   * enqueue made before the switch meets its job from the partition its key routes to.
   */
  copyIdempotencyKeys(queue: string, to: (key: string) => string): Promise<number>;
  /** How many jobs each of the queue's indexes holds. */
  counts(queue: string): Promise<QueueCounts>;
}
