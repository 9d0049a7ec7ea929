// ROLE HealthReport (optional): a backend that can know it cannot take writes says why
// (MemoryStore: its data file cannot be written). GET /healthz answers 503 with it.
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.

export interface HealthReport {
  /** Why the store cannot take writes now, or undefined. */
  unhealthy(): Error | undefined;
}

export function hasHealthReport<S extends object>(store: S): store is S & HealthReport {
  return typeof (store as Partial<HealthReport>).unhealthy === 'function';
}
