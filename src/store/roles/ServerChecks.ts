// ROLE ServerChecks (optional): what a supervisor checks of the server at start: that no job
// can be lost to eviction or a restart, and that the stored data is in this code's format.
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.

export interface ServerChecks {
  /**
   * The server's key-eviction policy, if the backend can tell ('noeviction' is the only one
   * under which no job is lost to eviction), or null when it cannot be read.
   */
  evictionPolicy(): Promise<string | null>;
  /**
   * Whether the server keeps an append-only file (without one a restart loses every write since
   * the last snapshot), or null when it cannot be read.
   */
  appendOnly(): Promise<boolean | null>;
  /**
   * Stamps a fresh store with the code's data format and refuses one of another version
   * (StoreFormatError: STORE_FORMAT_NEWER / STORE_FORMAT_OLDER; see storeFormat.ts). A
   * supervisor calls it at start; cheap (one read), and a no-op after it passed once. A backend
   * that checks its format where it loads its data (MemoryStore's data file) resolves at once.
   */
  checkFormat(): Promise<void>;
}

export function hasServerChecks<S extends object>(store: S): store is S & ServerChecks {
  const s = store as Partial<ServerChecks>;
  return (
    typeof s.evictionPolicy === 'function' &&
    typeof s.appendOnly === 'function' &&
    typeof s.checkFormat === 'function'
  );
}
