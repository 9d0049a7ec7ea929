// A pipeline attempt that errored is retried from the state it failed in, not from scratch:
// its snapshot at the error is kept with every errored actor set back to active, so on restore
// XState re-runs the invoke that failed (in-flight invokes re-run on restore) and nothing that
// completed before it.

interface PersistedActor {
  status?: string;
  error?: unknown;
  children?: Record<string, { snapshot?: PersistedActor } | undefined>;
  [key: string]: unknown;
}

export function reviveErrored<T>(persisted: T): T {
  const s = persisted as PersistedActor;
  if (!s || typeof s !== 'object') return persisted;
  const out: PersistedActor = { ...s };
  if (out.status === 'error') {
    out.status = 'active';
    delete out.error;
  }
  if (out.children) {
    const children: PersistedActor['children'] = {};
    for (const [id, child] of Object.entries(out.children)) {
      children[id] = child?.snapshot ? { ...child, snapshot: reviveErrored(child.snapshot) } : child;
    }
    out.children = children;
  }
  return out as T;
}
