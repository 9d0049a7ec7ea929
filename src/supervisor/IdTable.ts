// A table keyed by job id whose entries come and go at the rate jobs run (the running jobs, the
// writes in flight): a null-prototype object in dictionary mode, not a Map.
//
// WHY NOT A MAP: V8's Map keeps its entries in a table it replaces as they come and go (it
// grows, shrinks, and `clear()` starts a new one); the table replaced keeps the entries it held
// then and a pointer to its successor, so a table promoted to the old generation keeps every
// later table, and the jobs in them, alive through each scavenge until the next full GC. With a
// Map of the running jobs a worker promoted ~1.7 KB more per resume, and spent 3x the GC time
// (bench/probes/resumeWorker.ts, issue 25). A dictionary's table is rehashed without such a
// link (an `Object.create(null)` is in dictionary mode from the start: no hidden class per id).
//
// Iteration order: ids that read as array indexes ("42") first, in numeric order, then the
// others in insertion order. No user of these tables depends on the order.

export class IdTable<V> implements ReadonlyMap<string, V> {
  private table: Record<string, V> = Object.create(null) as Record<string, V>;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: string): V | undefined {
    return this.table[id];
  }

  has(id: string): boolean {
    return id in this.table;
  }

  set(id: string, value: V): this {
    if (!(id in this.table)) this.count++;
    this.table[id] = value;
    return this;
  }

  delete(id: string): boolean {
    if (!(id in this.table)) return false;
    delete this.table[id];
    this.count--;
    return true;
  }

  /** Drops every entry: a new table (the old one is left to the GC, linked to nothing). */
  clear(): void {
    if (this.count === 0) return;
    this.table = Object.create(null) as Record<string, V>;
    this.count = 0;
  }

  // Iterations go over the ids present when they begin, and skip an id deleted (or cleared)
  // before its turn, as a Map's do: a run's end may delete entries while a stop walks them.
  *keys(): MapIterator<string> {
    for (const id of Object.keys(this.table)) if (id in this.table) yield id;
  }

  *values(): MapIterator<V> {
    for (const id of Object.keys(this.table)) if (id in this.table) yield this.table[id]!;
  }

  *entries(): MapIterator<[string, V]> {
    for (const id of Object.keys(this.table)) if (id in this.table) yield [id, this.table[id]!];
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, id: string, table: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const id of Object.keys(this.table))
      if (id in this.table) fn.call(thisArg, this.table[id]!, id, this);
  }
}
