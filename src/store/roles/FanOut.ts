// ROLE FanOut (required): a parent's children. A parent's run opens a fan-out record, children
// finish into it (on the parent's queue directly; from another queue through that queue's
// outbox, relayed), and the client reads the groups and child ids.
// Argument order, in every role: a call on a queue's work takes `queue` first; a call on one job
// takes the job's id first, then `queue`, the locator that finds it. For childIds that `queue`
// is where the children live (a parent's children may live on other queues), not the parent's.

/** What one relay of a queue's outbox did. */
export interface RelayResult {
  /** Entries delivered to their parent's fan-out record (a repeat counts, and changes nothing). */
  relayed: number;
  /** Entries that could not be delivered and were taken out, with why (the caller logs them). */
  dropped: { entry: string; why: string }[];
  /** The call took a full batch: more entries may wait. */
  more: boolean;
}

/** A parent's fan-out record: how many children, how many finished, and their outcomes. */
export interface FanState {
  total: number;
  policy: 'failFast' | 'collect';
  finished: number;
  failed: number;
  /** Outcome JSON by child index, for the children finished so far. */
  results: Map<number, string>;
  /**
   * The parent was redriven from a dead letter: the outcomes of children that did not end done
   * were dropped, and those children are to be made anew (NewJob.revive).
   */
  revive: boolean;
}

export interface FanOut {
  /**
   * Opens parent `parentId`'s (of `queue`) fan-out record once, and returns what it holds so
   * far. With `token` (the parent's lease token: a worker's call), fenced: refused with
   * LEASE_LOST unless the parent holds it. Nothing is made for a parent that does not exist.
   */
  fanOpen(
    parentId: string,
    queue: string,
    group: string,
    total: number,
    policy: 'failFast' | 'collect',
    token?: string,
  ): Promise<FanState>;
  /**
   * Delivers up to a batch of finished children to parents on other queues, atomically per
   * entry (the queue's outbox entries carry each child's outcome, so a child's record deleted by
   * retention loses nothing; a repeat delivery changes nothing).
   */
  relayOutbox(queue: string): Promise<RelayResult>;
  /** The fan-out groups of a parent: name, child count, children finished. */
  fanGroups(parentId: string, queue: string): Promise<{ group: string; total: number; finished: number }[]>;
  /** Ids of a parent's children that live on `queue`, in fan-out order. */
  childIds(parentId: string, queue: string, offset: number, limit: number): Promise<string[]>;
}
