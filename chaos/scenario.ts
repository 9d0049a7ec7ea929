// What a chaos test is and what it reports: each fault family (chaos/faults/*.ts) exports
// scenarios; a scenario runs in its own Cluster and returns one result per variant, each a list
// of targets with the figure measured against each.

import { check, type Figures } from './checker.js';
import type { Cluster } from './cluster.js';

export interface RunEnv {
  quick: boolean;
  /** The bundled worker script (bundle.ts). */
  worker: string;
  seed: number;
  /** Keep each test's oracle files (always kept when a target is missed). */
  keep: boolean;
}

export interface Target {
  /** The target as the issue states it. */
  what: string;
  /** The figure measured. */
  measured: string;
  ok: boolean;
}

export interface Result {
  id: string;
  title: string;
  /** What the test does, in a sentence or two (docs/RELIABILITY.md). */
  procedure: string;
  targets: Target[];
  figures?: Figures;
  /** What the test observed beyond its targets (a behaviour to document). */
  notes: string[];
  seconds: number;
  /** Where the oracle's files were kept, when they were. */
  kept?: string;
}

export interface Scenario {
  id: string;
  title: string;
  /** Run in the short variant (CHAOS_QUICK=1) too. */
  quick: boolean;
  run(env: RunEnv): Promise<Result[]>;
}

export const target = (what: string, ok: boolean, measured: string | number): Target => ({
  what,
  ok,
  measured: String(measured),
});

/** The targets every workload test shares: nothing lost, stuck or completed twice, no crash. */
export function contractTargets(f: Figures, exits: string[]): Target[] {
  return [
    target(
      '0 acknowledged jobs lost',
      f.lost === 0,
      `${f.lost} of ${f.jobs}` +
        (f.minimalGone === undefined
          ? ''
          : ` (${f.minimalGone} minimal records gone, checked by the done tally)`),
    ),
    target('0 double completions', f.doubleComplete === 0, f.doubleComplete),
    target(
      '0 jobs stuck in a non-final status',
      f.stuck === 0,
      `${f.stuck} (+${f.children} children checked)`,
    ),
    target(
      'every job ends as it must (done; failing: failed; cancelled when cancelled)',
      f.wrongEnd === 0,
      f.wrongEnd,
    ),
    target('0 completed checkpoints re-run', f.reRunCheckpoint === 0, f.reRunCheckpoint),
    target('0 fan-outs done twice', f.fannedTwice === 0, f.fannedTwice),
    target('0 sent events lost', f.lostEvents === 0, f.lostEvents),
    target('cancels final', f.cancelBroken === 0, f.cancelBroken),
    target('0 worker crashes', f.crashes === 0 && exits.length === 0, f.crashes + exits.length),
  ];
}

/** Waits for the workload to end, then checks the oracle against Redis. */
export async function settleAndCheck(
  cluster: Cluster,
  settleMs: number,
): Promise<{ figures: Figures; settled: boolean; lines: ReturnType<Cluster['lines']> }> {
  const settled = await cluster.settle(settleMs);
  const lines = cluster.lines();
  const figures = check(lines, await cluster.collect(lines));
  return { figures, settled, lines };
}

/** The notes a result carries: a few examples of each breach the checker found. */
export function exampleNotes(f: Figures): string[] {
  return Object.entries(f.examples).map(([k, v]) => `${k}: ${v.join('; ')}`);
}
