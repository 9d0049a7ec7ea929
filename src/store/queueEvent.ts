// One entry of a queue's event stream, as `readEvents` returns it.

export interface QueueEvent {
  /** Stream entry id; pass it back to read from there. */
  cursor: string;
  jobId: string;
  type: string;
  status?: string;
  at: number;
  data?: unknown;
}
