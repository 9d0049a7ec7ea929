// A sorted set as Redis keeps one: members with a score, ordered by score, then by member. The
// indexes MemoryStore lists jobs in (queued, delayed, active, ...) are these.
//
// Scores live in a Map; a binary heap beside it serves the hot path (the lowest entries: a claim
// pops the next job, the reaper and the promotion of due jobs take what is due). The heap is
// lazy: a removed or re-scored member leaves its old heap entry behind, and an entry counts only
// while its score is still the member's. Full ordered reads (listing) sort the map, cached until
// the next change.

interface Entry {
  score: number;
  member: string;
}

const before = (a: Entry, b: Entry): boolean =>
  a.score < b.score || (a.score === b.score && a.member < b.member);

export class ZSet {
  private readonly scores = new Map<string, number>();
  private heap: Entry[] = [];
  private sorted: Entry[] | undefined;

  get size(): number {
    return this.scores.size;
  }

  has(member: string): boolean {
    return this.scores.has(member);
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  add(member: string, score: number): void {
    if (this.scores.get(member) === score) return;
    this.scores.set(member, score);
    this.push({ score, member });
    this.sorted = undefined;
  }

  delete(member: string): boolean {
    if (!this.scores.delete(member)) return false;
    this.sorted = undefined;
    if (this.heap.length > 2 * this.scores.size + 1024) this.rebuild();
    return true;
  }

  /** Empties the set. */
  clear(): void {
    this.scores.clear();
    this.heap = [];
    this.sorted = undefined;
  }

  /** The lowest entry, without taking it. */
  first(): Entry | undefined {
    this.dropStale();
    return this.heap[0];
  }

  /** Takes the lowest entry. */
  popMin(): Entry | undefined {
    this.dropStale();
    const top = this.heap[0];
    if (!top) return undefined;
    this.removeTop();
    this.scores.delete(top.member);
    this.sorted = undefined;
    return top;
  }

  /** Takes entries scored at most `max`, lowest first, `limit` at most. */
  popUpTo(max: number, limit: number): Entry[] {
    const out: Entry[] = [];
    while (out.length < limit) {
      const top = this.first();
      if (!top || top.score > max) break;
      out.push(this.popMin()!);
    }
    return out;
  }

  /** Members in order (or reversed), from `offset`, `count` at most. */
  range(offset: number, count: number, rev = false): Entry[] {
    if (!this.sorted) {
      this.sorted = [...this.scores].map(([member, score]) => ({ score, member }));
      this.sorted.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    }
    const all = this.sorted;
    if (!rev) return all.slice(offset, offset + count);
    const end = all.length - offset;
    return all.slice(Math.max(0, end - count), Math.max(0, end)).reverse();
  }

  /** Every member and score (unordered), for a snapshot. */
  entries(): [string, number][] {
    return [...this.scores];
  }

  private isLive(e: Entry): boolean {
    return this.scores.get(e.member) === e.score;
  }

  private dropStale(): void {
    while (this.heap.length > 0 && !this.isLive(this.heap[0]!)) this.removeTop();
  }

  private rebuild(): void {
    this.heap = [];
    for (const [member, score] of this.scores) this.push({ score, member });
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private removeTop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
