// POST /triggers/<name> (docs/triggers.md): each declared trigger (triggers/defineTrigger.ts) as
// its own route, in a context whose body parser keeps the raw bytes, because the signature covers
// them exactly. Order: signature (401 BAD_SIGNATURE), then the JSON (400), then the mapping and
// the dedupe key (400), then the enqueue (the Client's checks and dedupe, as POST /jobs): a
// request refused at any step enqueues nothing. An unknown name is a 404 TRIGGER_NOT_FOUND.

import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { parseJsonBody } from '../jsonBody.js';
import { CODE } from '../../errorCodes.js';
import { bearerSecurity, errorReplies, ref } from '../schemas.js';
import {
  DEFAULT_TRIGGER_DEDUPE_TTL_MS,
  type TriggerDefinition,
  type TriggerRequest,
} from '../../triggers/defineTrigger.js';
import { verifyTriggerSignature } from '../../triggers/verifyTriggerSignature.js';
import type { DedupeOption } from '../../client/validateEnqueue.js';

/** The route every trigger URL falls back to (declared ones are static routes, matched first). */
export const TRIGGER_ROUTE = '/triggers/:name';

/** The URLs that need no bearer token: a verified trigger's (its signature authenticates it), and the 404. */
export function openTriggerRoutes(triggers: readonly TriggerDefinition[]): string[] {
  return [TRIGGER_ROUTE, ...triggers.filter((t) => t.verify).map((t) => `/triggers/${t.name}`)];
}

const reply202 = {
  type: 'object',
  required: ['job_id'],
  properties: { job_id: { type: 'string' } },
} as const;

const describe = (t?: TriggerDefinition) => ({
  summary: t ? `Trigger '${t.name}': enqueues '${t.machine}'` : 'Run a declared trigger',
  description:
    "Enqueues the trigger's machine with the JSON body (or the trigger's mapping of it) as input. A trigger declared with a signature scheme (Standard Webhooks, a GitHub-style `X-Hub-Signature-256: sha256=<hex>`, or `Stripe-Signature`) needs no bearer token: a request without a valid signature is 401 BAD_SIGNATURE. A dedupe key taken from the request (e.g. `webhook-id`) makes a sender's retries enqueue once. Unknown name: 404 TRIGGER_NOT_FOUND. Bad JSON: 400. Triggers are declared in createServer's `triggers` (or `machinist serve --triggers <module>`); see docs/triggers.md.",
  tags: ['triggers'],
  security: t && !t.verify ? bearerSecurity : [],
  // Any content type is read (the signature covers the bytes): no 415.
  response: { 202: reply202, ...errorReplies, 413: ref('Error') },
});

/** The trigger's dedupe key for this request: the header's value (hashed when long), under its name. */
function dedupeOf(t: TriggerDefinition, body: unknown, r: TriggerRequest): DedupeOption | undefined {
  const d = t.dedupe ?? (t.verify?.scheme === 'standardWebhooks' ? { header: 'webhook-id' } : undefined);
  if (!d) return undefined;
  let key: string | undefined;
  if (d.header !== undefined) {
    const v = r.headers[d.header.toLowerCase()];
    key = Array.isArray(v) ? v[0] : v;
  } else {
    try {
      key = d.key?.(body, r);
    } catch (err) {
      throw new HttpError(
        CODE.INVALID_INPUT,
        `trigger '${t.name}': its dedupe key function threw: ${String(err)}`,
        {
          field: 'dedupe',
        },
      );
    }
  }
  if (typeof key !== 'string' || key === '')
    throw new HttpError(
      CODE.INVALID_INPUT,
      `trigger '${t.name}' takes its dedupe key from ${d.header !== undefined ? `the ${d.header} header` : 'the request'}, which has none`,
      { field: d.header ?? 'dedupe' },
    );
  // Within the dedupe key's 256 characters, whatever the sender's id is like.
  if (key.length > 200) key = createHash('sha256').update(key).digest('hex');
  const mode = d.mode ?? 'ttl';
  return {
    key: `trigger:${t.name}:${key}`,
    mode,
    ttlMs: d.ttlMs ?? (mode === 'untilDone' ? undefined : DEFAULT_TRIGGER_DEDUPE_TTL_MS),
    maxDelayMs: d.maxDelayMs,
    keepLast: d.keepLast,
  };
}

export function triggerRoutes(
  app: FastifyInstance,
  api: ApiContext,
  triggers: readonly TriggerDefinition[],
  maxDepth: number,
): void {
  // The raw bytes, whatever the content type: the signature is over them, and senders differ
  // (application/json, application/json; charset=utf-8, +json types).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const run = async (t: TriggerDefinition, request: FastifyRequest) => {
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const r: TriggerRequest = { headers: request.headers, rawBody };
    if (t.verify) {
      const why = verifyTriggerSignature(t.verify, r);
      if (why) throw new HttpError(CODE.BAD_SIGNATURE, `trigger '${t.name}': ${why}`, { field: 'signature' });
    }
    if (rawBody.length === 0)
      throw new HttpError(CODE.INVALID_JSON, `trigger '${t.name}': the body is empty`);
    const body = parseJsonBody(rawBody, maxDepth);
    let input = body;
    if (t.input) {
      try {
        input = await t.input(body, r);
      } catch (err) {
        throw new HttpError(
          CODE.INVALID_INPUT,
          `trigger '${t.name}': its input mapping refused the body: ${err instanceof Error ? err.message : String(err)}`,
          { field: 'input' },
        );
      }
    }
    const dedupe = dedupeOf(t, body, r);
    const id = await api.client.enqueue(t.machine, input, { queue: t.queue, priority: t.priority, dedupe });
    return { job_id: id };
  };

  for (const t of triggers) {
    app.post(`/triggers/${t.name}`, { schema: { ...describe(t), hide: true } }, async (request, reply) =>
      reply.code(202).send(await run(t, request)),
    );
  }
  app.post(TRIGGER_ROUTE, { schema: describe() }, async (request) => {
    const { name } = request.params as { name: string };
    throw new HttpError(CODE.TRIGGER_NOT_FOUND, `no trigger named '${name}' is declared on this server`, {
      field: 'name',
    });
  });
}
