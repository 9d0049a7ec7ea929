// What one ingress entry (docs/ingress.md) becomes: a job, checked exactly as Client.enqueue
// checks one (client/buildNewJob.ts, the definition's input schema included), or the broken set
// with a reason naming what is wrong.

import { buildNewJob, newJobId, type BuiltJob } from '../client/buildNewJob.js';
import type { InputSchema } from '../runtime/checkInput.js';
import { InputSchemaError } from '../errors.js';
import type { EnqueueOptions } from '../client/validateEnqueue.js';
import { DEFAULT_MAX_ATTEMPTS } from '../runtime/backoff.js';
import { MAX_INPUT_DEPTH } from '../runtime/inputLimits.js';
import { parseStrictJson, StrictJsonError } from '../runtime/strictJson.js';
import type { Registry } from '../runtime/registry.js';
import type { IngressDecision } from '../store/types.js';
import { CODE, type ErrorCode } from '../errorCodes.js';
import { ingressJobId, misplacedEntry } from './ingressPartition.js';

/**
 * What an entry may take beyond its input: the fields (priority, id, ...) and their punctuation
 * are at most a few hundred bytes, so 4 KiB on top of the input's allowance never refuses a
 * well-formed entry, even with a small `maxPayloadBytes`.
 */
export const INGRESS_ENTRY_SLACK_BYTES = 4096;

/**
 * Largest entry parsed: twice the input limit (an input written with escapes or spacing may
 * take up to about twice its compact size) plus the slack for the other fields. A larger entry is
 * set aside unparsed (INGRESS_TOO_LARGE); a smaller one still has its input checked exactly.
 */
export function ingressEntryLimit(maxPayloadBytes: number): number {
  return maxPayloadBytes * 2 + INGRESS_ENTRY_SLACK_BYTES;
}

/** The fields an entry may have; any other is refused (a misspelt "priorty" is not ignored). */
const FIELDS = new Set([
  'machine',
  'input',
  'priority',
  'id',
  'delayMs',
  'maxAttempts',
  'partitionKey',
  'dedupe',
  'concurrencyKey',
]);
/**
 * A producer's own job id: it becomes part of Redis keys and of comma-joined id lists. It may
 * name its partition (`2~order-42`, store/partitions.ts).
 */
const OWN_ID = /^(\d{1,4}~)?[A-Za-z0-9._-]{1,128}$/;

export function parseIngressEntry(
  raw: Buffer,
  registry: Registry,
  limits: { queue: string; maxPayloadBytes: number; partitions?: number },
): IngressDecision | Promise<IngressDecision> {
  const partitions = limits.partitions ?? 1;
  const broken = (code: ErrorCode, why: string): IngressDecision => ({
    id: newJobId(),
    reason: `${code}: ${why}`,
  });
  if (raw.length > ingressEntryLimit(limits.maxPayloadBytes))
    return broken(
      CODE.INGRESS_TOO_LARGE,
      `entry is ${raw.length} bytes, over the ${ingressEntryLimit(limits.maxPayloadBytes)}-byte limit ` +
        `(twice the ${limits.maxPayloadBytes}-byte input limit, plus ${INGRESS_ENTRY_SLACK_BYTES})`,
    );
  let entry: unknown;
  try {
    // Strictly, as the HTTP API parses a body: the input in the entry plus the entry itself.
    entry = parseStrictJson(raw, MAX_INPUT_DEPTH + 1);
  } catch (err) {
    const problem = err instanceof StrictJsonError ? err.problem : 'INVALID_JSON';
    const message = (err as Error).message;
    if (problem === CODE.NOT_UTF8 || problem === CODE.INVALID_JSON)
      return broken(CODE.INGRESS_UNDECODABLE, `entry is not UTF-8 JSON: ${message}`);
    return broken(CODE.INGRESS_INVALID, `entry refused: ${message}`);
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return broken(CODE.INGRESS_INVALID, 'entry must be a JSON object');
  const e = entry as Record<string, unknown>;
  for (const key of Object.keys(e)) {
    if (!FIELDS.has(key))
      return broken(CODE.INGRESS_INVALID, `unknown field '${key}' (known: ${[...FIELDS].join(', ')})`);
  }
  if (typeof e.machine !== 'string' || e.machine === '')
    return broken(CODE.INGRESS_INVALID, "field 'machine' must be a non-empty string");
  if (!('input' in e)) return broken(CODE.INGRESS_INVALID, "field 'input' is missing (null is an input)");
  if (e.id !== undefined && (typeof e.id !== 'string' || !OWN_ID.test(e.id)))
    return broken(
      CODE.INGRESS_INVALID,
      "field 'id' must be 1-128 of letters, digits, '.', '_', '-' (after an optional partition '<i>~')",
    );
  if (
    e.partitionKey !== undefined &&
    (typeof e.partitionKey !== 'string' || e.partitionKey.length === 0 || e.partitionKey.length > 256)
  )
    return broken(CODE.INGRESS_INVALID, "field 'partitionKey' must be a string of 1-256 characters");
  const misplaced = misplacedEntry(limits.queue, partitions, e);
  if (misplaced) return broken(CODE.INGRESS_INVALID, misplaced);
  const def = registry.latest(e.machine);
  if (!def)
    return broken(
      CODE.UNKNOWN_MACHINE,
      `no machine named '${e.machine}' is registered on the supervisor for queue '${limits.queue}'`,
    );
  const options: EnqueueOptions = {};
  if (e.priority !== undefined) options.priority = e.priority as EnqueueOptions['priority'];
  if (e.delayMs !== undefined) options.delayMs = e.delayMs as number;
  if (e.maxAttempts !== undefined) options.maxAttempts = e.maxAttempts as number;
  // Checked as the Client checks it (validateEnqueue.ts): a bad one sets the entry aside.
  if (e.dedupe !== undefined) options.dedupe = e.dedupe as EnqueueOptions['dedupe'];
  if (e.concurrencyKey !== undefined) options.concurrencyKey = e.concurrencyKey as string;
  const refused = (err: unknown): IngressDecision =>
    // An input the machine's schema refuses is told apart from an entry that is malformed.
    err instanceof InputSchemaError
      ? broken(CODE.INVALID_INPUT, err.message)
      : broken(CODE.INGRESS_INVALID, (err as Error).message);
  const decided = ({ job }: BuiltJob): IngressDecision => {
    if (typeof e.id !== 'string') {
      job.id = ingressJobId(limits.queue, partitions);
      return { job, ownId: false };
    }
    job.id = e.id;
    return { job, ownId: true, spareId: newJobId() };
  };
  try {
    const built = buildNewJob(
      e.machine,
      e.input,
      options,
      {
        version: def.version,
        maxAttempts: def.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        input: def.input as InputSchema | undefined,
      },
      limits,
    );
    return built instanceof Promise ? built.then(decided, refused) : decided(built);
  } catch (err) {
    return refused(err);
  }
}
