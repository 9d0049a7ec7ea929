// What an observer hears of one attempt (JobObserver.ts): its states and how it ended.

/**
 * How an attempt ended: the kind of its ending write, or 'lease-lost' when the lease went
 * before (or instead of) that write.
 */
export type AttemptEnd =
  'done' | 'failed' | 'retry' | 'cancelled' | 'parked' | 'requeued' | 'broken' | 'lease-lost';

/** Watches one attempt. Called on the job's hot path: implementations must be cheap. */
export interface AttemptWatch {
  /** The machine settled in a state; `valueText` is its state value as JSON (as logged). */
  state(valueText: string): void;
  /** The attempt ended; `finalState` (JSON) is the state the machine ended in, if written. */
  end(how: AttemptEnd, finalState?: string): void;
  /**
   * The attempt's active trace context now (an OpenTelemetry Context: its current step's span,
   * else the attempt's), for the work it starts (its children's publish spans hang under it).
   */
  trace?(): unknown;
}
