// A pipeline attempt that errored is retried from the state it failed in, not from scratch:
// its snapshot at the error is kept with every errored actor set back to active, so on restore
// XState re-runs the invoke that failed (in-flight invokes re-run on restore) and nothing that
// completed before it. A child that is `done` while its state is still active finished but its
// done event was not taken (an assign or guard of that transition threw): it is set back to
// active as well, else the restored machine would wait for an event that never comes.

interface PersistedActor {
  status?: string;
  error?: unknown;
  children?: Record<string, { snapshot?: PersistedActor } | undefined>;
  [key: string]: unknown;
}

export function reviveErrored<T>(persisted: T, inputs?: ReadonlyMap<string, unknown>): T {
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
      let snap = child?.snapshot;
      if (snap?.status === 'done') {
        snap = { ...snap, status: 'active' };
        delete snap.output;
      }
      // An errored promise actor forgets its input (XState sets it to undefined): the retry
      // re-runs it with the input it started with.
      if (snap && snap.status === 'error' && snap.input === undefined && inputs?.has(id))
        snap = { ...snap, input: inputs.get(id) };
      children[id] = snap ? { ...child, snapshot: reviveErrored(snap, inputs) } : child;
    }
    out.children = children;
  }
  return out as T;
}
