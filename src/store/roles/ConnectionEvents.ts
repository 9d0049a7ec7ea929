// ROLE ConnectionEvents (optional): a backend reached over a connection tells when it is lost
// and back (RedisStore; a MemoryStore has no connection).
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.

/** The store's worker connection went unreachable, or came back (see `watchConnection`). */
export interface ConnectionChange {
  up: boolean;
  /** The server, `host:port`. */
  address: string;
  /** When unreachable: the cause the driver gave, if any. */
  error?: unknown;
  /** When back: how long it was unreachable. */
  downMs?: number;
}

export interface ConnectionEvents {
  /**
   * Reports each change of the supervisors' connection between reachable and unreachable (at
   * once when it is unreachable now), for the log; returns an unsubscribe.
   */
  watchConnection(listener: (change: ConnectionChange) => void): () => void;
  /**
   * Calls `listener` each time the store's connection is ready again after it was lost (not on
   * the first connect). Returns the unsubscribe function.
   */
  onReconnect(listener: () => void): () => void;
}

export function hasConnectionEvents<S extends object>(store: S): store is S & ConnectionEvents {
  const s = store as Partial<ConnectionEvents>;
  return typeof s.watchConnection === 'function' && typeof s.onReconnect === 'function';
}
