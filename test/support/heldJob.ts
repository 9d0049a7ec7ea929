// A job definition for the stranded-marker tests: input 'hold' runs until released (so its
// supervisor is full), any other input returns at once; each run's start time is kept by input.
import { defineJob } from '../../src/index.js';

/** How late a timer job may run: well above a loaded 2-core machine's, well below idleWaitMs. */
export const LATE_BOUND_MS = 1500;

export function heldJob() {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let holding = false;
  const ranAt = new Map<string, number>();
  const job = defineJob({
    name: 'mixed',
    work: async ({ input }: { input: string }) => {
      ranAt.set(input, Date.now());
      if (input === 'hold') {
        holding = true;
        await held;
      }
    },
  });
  return {
    job,
    /** True once the 'hold' run has started. */
    holding: () => holding,
    release: () => release(),
    /** Milliseconds between `due` and the start of the run of `input`. */
    lateOf: (input: string, due: number) => ranAt.get(input)! - due,
  };
}
