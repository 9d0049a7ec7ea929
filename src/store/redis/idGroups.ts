// THE IDS GROUPED (data format 4): the combined `enqueued` entry of a plain batch (lua/enqueue-5.lua)
// lists its ids in field `jg` instead of `js` when every id is 26 ASCII letters or digits (a ULID,
// as the Client's id factory makes them): ids next to each other that differ only in their last
// character are written as their common 25 characters once, then each one's last character. The
// Client's monotonic ULIDs of one millisecond count up in their last character, so a batch of
// 1,000 takes ~1.9 kB instead of 27 kB: the events stream cost a queued job 29 B of its 244
// (bench/probes/queuedMemory.ts). Groups are joined by ',' as `js` joins ids; a group is 25
// characters then one or more (every id of the entry has 26), so it reads back unambiguously.

/** An id the grouped form can hold: 26 single-byte characters, none of them ','. */
const GROUPABLE = /^[0-9A-Za-z]{26}$/;
const COMMON = 25;

/** `ids` in the grouped form (their order kept), or null when one of them cannot be held. */
export function groupIds(ids: readonly string[]): string | null {
  let out = '';
  let common = '';
  for (const id of ids) {
    if (!GROUPABLE.test(id)) return null;
    const head = id.slice(0, COMMON);
    if (head === common) out += id[COMMON];
    else {
      out += out === '' ? id : `,${id}`;
      common = head;
    }
  }
  return out;
}

/** The ids of a grouped text, in order. */
export function ungroupIds(text: string): string[] {
  const ids: string[] = [];
  for (const group of text.split(',')) {
    const head = group.slice(0, COMMON);
    for (let i = COMMON; i < group.length; i++) ids.push(head + group[i]!);
  }
  return ids;
}
