// `toStoredError` is the one place a thrown value becomes JSON (the form it takes in a job record).

/** The form an error takes in a job record: plain JSON (XState would turn an Error into {}). */
export interface StoredError {
  name: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: StoredError;
}

/** Coerces anything thrown into an Error. */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  if (typeof thrown === 'string') return new Error(thrown);
  try {
    return new Error(`non-error thrown: ${JSON.stringify(thrown)}`);
  } catch {
    return new Error(`non-error thrown: ${String(thrown)}`);
  }
}

export function toStoredError(thrown: unknown, depth = 0): StoredError {
  const err = toError(thrown);
  const out: StoredError = { name: err.name, message: err.message };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = String(code);
  if (err.stack) out.stack = err.stack.split('\n').slice(0, 12).join('\n');
  if (err.cause !== undefined && depth < 3) out.cause = toStoredError(err.cause, depth + 1);
  return out;
}
