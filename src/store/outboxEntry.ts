// An entry of a queue's outbox: a finished child whose parent lives on another queue, with
// everything its parent's fan-in needs (who the parent is, the child's place in the fan-out, how
// it ended and its outcome). The relay delivers it from the entry alone, never from the child's
// record, which retention may have deleted by then (issue 21: parents waited forever).
//
// The member of the `outbox` zset is the JSON array
//   [childId, parentId, parentQueue, group, index, status, outcome]
// (all strings; `outcome` is the fan-in outcome JSON: {"s":"done","o":...}). Written by
// notifyParent in lua/include/lcMove.lua (RedisStore) and MemoryLifecycle.notifyParent; an entry
// of an older version is the bare child id, which the relay can deliver only from the record.

export interface OutboxEntry {
  childId: string;
  parentId: string;
  parentQueue: string;
  group: string;
  index: string;
  status: string;
  outcome: string;
}

export function encodeOutboxEntry(e: OutboxEntry): string {
  return JSON.stringify([e.childId, e.parentId, e.parentQueue, e.group, e.index, e.status, e.outcome]);
}

/** The entry a member holds, or the bare child id of an entry an older version wrote. */
export function decodeOutboxEntry(member: string): OutboxEntry | { legacyId: string } | undefined {
  if (!member.startsWith('[')) return { legacyId: member };
  try {
    const a = JSON.parse(member) as unknown;
    if (!Array.isArray(a) || a.length !== 7 || !a.every((x) => typeof x === 'string')) return undefined;
    const [childId, parentId, parentQueue, group, index, status, outcome] = a as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    return { childId, parentId, parentQueue, group, index, status, outcome };
  } catch {
    return undefined;
  }
}

/** The fan-in outcome JSON of a child that ended `status` with output / error JSON. */
export function fanInOutcome(status: string, output: string | undefined, error: string | undefined): string {
  return status === 'done'
    ? `{"s":"done","o":${output ?? 'null'}}`
    : status === 'failed'
      ? `{"s":"failed","e":${error ?? 'null'}}`
      : '{"s":"cancelled"}';
}
