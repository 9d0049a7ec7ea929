// A store whose calls are counted by name as a client makes them (the store itself does the work):
// a test proves what a client asks, or does not ask, of its store.

/**
 * `store` behind a proxy that counts each method's calls in `calls`; a call whose promise
 * resolved with a non-empty list is counted again as `<name>:some`.
 */
export function countingStore<S extends object>(store: S): { store: S; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        const out = (v as (...a: unknown[]) => unknown).apply(target, args);
        if (out instanceof Promise)
          void out.then(
            (r) =>
              Array.isArray(r) &&
              r.length > 0 &&
              calls.set(`${prop}:some`, (calls.get(`${prop}:some`) ?? 0) + 1),
            () => {},
          );
        return out;
      };
    },
  });
  return { store: proxy, calls };
}
