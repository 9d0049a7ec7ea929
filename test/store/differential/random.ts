// A seeded random source for the differential test: the same seed makes the same sequence of
// operations, so a failing sequence can be replayed (DIFF_SEED=<seed>).

export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0 || 1;
  }

  /** A float in [0, 1) (mulberry32). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}
