// The routes validate with JSON Schema draft-07 (Fastify's Ajv), the document is OpenAPI 3.0.3,
// whose Schema Object keeps draft-04's forms: where the two differ, the document gets the 3.0
// form, so validators and code generators that follow the standard accept it.
//
// Draft-07 `exclusiveMinimum: 0` (a number) is 3.0's `minimum: 0, exclusiveMinimum: true`
// (a boolean); likewise for the maximum.

type Json = unknown;

/** A copy of `doc` with every draft-07-only keyword written the OpenAPI 3.0 way. */
export function toOpenApi30<T>(doc: T): T {
  return convert(doc) as T;
}

function convert(value: Json): Json {
  if (Array.isArray(value)) return value.map(convert);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) out[k] = convert(v);
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const limit = out[exclusive];
    if (typeof limit !== 'number') continue;
    out[bound] = limit;
    out[exclusive] = true;
  }
  return out;
}
