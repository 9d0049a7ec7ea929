// A job's input against the schema its definition declares (`defineJob({ input })`): any
// Standard Schema (zod, valibot, arktype, ...). Called by buildNewJob only, so every way in
// (Client.enqueue/enqueueMany, fan-out children, POST /jobs, the CLI, ingress) checks alike.

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { InputSchemaError, type InputIssue } from '../errors.js';

/** What `defineJob({ input })` and `definePipeline({ input })` take: any Standard Schema. */
export type InputSchema<In = unknown, Out = In> = StandardSchemaV1<In, Out>;

/** Whether `v` is a Standard Schema (v1) that can validate. */
export function isInputSchema(v: unknown): v is InputSchema {
  const std = (v as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.['~standard'];
  return (
    (typeof v === 'object' || typeof v === 'function') &&
    v !== null &&
    std?.version === 1 &&
    typeof std.validate === 'function'
  );
}

/** The checked input, boxed: an input that is itself a Promise is not mistaken for an async check. */
export interface Checked {
  value: unknown;
}

/**
 * The value to store for `input`: the schema's output (its defaults and transforms applied), or
 * `input` itself without a schema. Throws InputSchemaError naming every issue's path. Synchronous
 * when the schema is (no microtask on the enqueue path); a Promise when its validate is async.
 */
export function checkInput(
  machine: string,
  schema: InputSchema | undefined,
  input: unknown,
): Checked | Promise<Checked> {
  if (!schema) return { value: input };
  const result = schema['~standard'].validate(input);
  return result instanceof Promise ? result.then((r) => outcome(machine, r)) : outcome(machine, result);
}

function outcome(machine: string, r: StandardSchemaV1.Result<unknown>): Checked {
  if (!r.issues) return { value: r.value };
  const issues: InputIssue[] = r.issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
  throw new InputSchemaError(
    machine,
    issues.length > 0 ? issues : [{ path: 'input', message: 'is invalid' }],
  );
}

/** `input.sizes[1]`, `input.user.name`, `input["a b"]`: the path as a reader would write it. */
export function issuePath(path: StandardSchemaV1.Issue['path']): string {
  let out = 'input';
  for (const seg of path ?? []) {
    const key = typeof seg === 'object' && seg !== null ? seg.key : seg;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'symbol') out += `[${String(key)}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) out += `.${key}`;
    else if (/^\d+$/.test(key)) out += `[${key}]`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}
