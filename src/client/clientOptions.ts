// What a Client is built with (ClientOptions) and what its enqueues with info answer: the
// Client's own types, apart from Client.ts, which re-exports them.

import type { AnyDefinition, Registry } from '../runtime/registry.js';
import type { JobRecord, Store } from '../store/types.js';
import type { JobId, OutputFor } from './jobTypes.js';

export interface ClientOptions<D extends AnyDefinition = AnyDefinition> {
  store: Store;
  /**
   * Definitions to check names against, which also type the client: `enqueue` then takes only
   * their names (or the definitions) with their input types. Without them, the registry that
   * supervisors publish, and any name and input.
   */
  jobs?: readonly D[];
  /** Queue for enqueues that name none. Default 'default'. */
  queue?: string;
  /** Largest accepted input, serialized. Default 1 MiB. */
  maxPayloadBytes?: number;
  /**
   * @internal A supervisor's own definitions: the children its jobs enqueue are checked against
   * their input schemas (for the version the registry says runs). Unlike `jobs`, other names are
   * still taken, through the published registry.
   */
  inputSchemasFrom?: Registry;
  /**
   * With `@opentelemetry/api` installed and a tracer provider registered, each enqueue is a
   * `publish <queue>` span whose context is stored with the job (its attempts link to it).
   * Default true; false never loads the API.
   */
  tracing?: boolean;
}

/** What `enqueueWithInfo` answers: the job's id, and whether it is an existing job a key kept. */
export interface EnqueueInfo<Id extends string = string> {
  id: Id;
  /** True when a dedupe key (or an idempotency key) kept an existing job: `id` is that job's. */
  deduplicated: boolean;
}

/** What `enqueueAndWaitWithInfo` answers once the job is stored: `enqueueWithInfo`'s, and its end. */
export interface EnqueueWaitInfo<Output = unknown> extends EnqueueInfo<JobId<Output>> {
  /** The job's final record, as `enqueueAndWait` resolves (or rejects). */
  result: Promise<JobRecord<Output>>;
}

/** What `enqueueManyWithInfo(items)` answers: each job's `enqueueWithInfo` answer, in order. */
export type EnqueueInfosOf<D extends AnyDefinition, Refs extends readonly unknown[]> = {
  -readonly [K in keyof Refs]: EnqueueInfo<JobId<OutputFor<D, Refs[K]>>>;
};

/** What `enqueueManyAndWaitWithInfo(items)` answers once all are stored: each job's, in order. */
export type EnqueueWaitInfosOf<D extends AnyDefinition, Refs extends readonly unknown[]> = {
  -readonly [K in keyof Refs]: EnqueueWaitInfo<OutputFor<D, Refs[K]>>;
};
