/** The earlier of two times (ms; null: none): a run's wake (pipelineRun.ts), a pump's (CommitPump.ts). */
export function earliestOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}
