// ROLE ControlChannel (optional): pushes control messages (cancel, event, fanin) to the worker
// that holds a job, so it acts at once rather than at its next heartbeat. Without it, workers
// learn of them by polling (src/supervisor/controlChannel.ts).
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.

export interface ControlChannel {
  /**
   * Delivers control messages addressed to one worker of `queue`; resolves once listening, with
   * the function that stops it.
   */
  subscribeControl(
    queue: string,
    workerId: string,
    onMessage: (message: string) => void,
  ): Promise<() => Promise<void>>;
}

export function hasControlChannel<S extends object>(store: S): store is S & ControlChannel {
  return typeof (store as Partial<ControlChannel>).subscribeControl === 'function';
}
