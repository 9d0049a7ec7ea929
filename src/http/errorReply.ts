// How any failure becomes an HTTP answer: one status per error code, and one body,
// `{ error: { code, message, ...ids } }`, whatever raised it (a typed Machinist error, Fastify's
// own body and schema checks, or something unforeseen, which is logged and answered 500 without
// its details).

import type { FastifyError, FastifyInstance } from 'fastify';
import {
  InputSchemaError,
  MachinistError,
  RedisUnavailableError,
  type ErrorIds,
  type InputIssue,
} from '../errors.js';
import { CODE, type ErrorCode, httpStatusOf } from '../errorCodes.js';

/** Fastify's own errors, renamed to the API's codes (the registry, errorCodes.ts, gives their status). */
const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
};

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    field?: string;
    jobId?: string;
    machine?: string;
    queue?: string;
    maybeApplied?: boolean;
    /** The job of a batch refused (POST /jobs/batch), from 0; `field` is within it. */
    index?: number;
    /** Every problem the job's input schema found (`field` is the first one's path). */
    issues?: InputIssue[];
  };
}

/** An error the API raises itself (auth, a missing route, a dead letter that is none). */
export class HttpError extends MachinistError {
  constructor(code: ErrorCode, message: string, ids: ErrorIds = {}) {
    super(code, message, ids);
  }
}

/** The status and body for anything thrown by a handler or by Fastify. */
export function errorReply(
  err: unknown,
  limit?: number,
): { status: number; body: ErrorBody; internal: boolean } {
  if (err instanceof MachinistError) {
    const status = httpStatusOf(err.code) ?? 500;
    const body: ErrorBody = { error: { code: err.code, message: err.message } };
    for (const k of ['field', 'jobId', 'machine', 'queue'] as const) if (err[k]) body.error[k] = err[k];
    if (err.index !== undefined) body.error.index = err.index;
    if (err instanceof RedisUnavailableError) body.error.maybeApplied = err.maybeApplied;
    if (err instanceof InputSchemaError) body.error.issues = [...err.issues];
    return { status, body, internal: status === 500 };
  }
  const fe = err as Partial<FastifyError>;
  if (fe.validation) {
    const first = fe.validation[0];
    const params: Record<string, unknown> = first?.params ?? {};
    const path = (first?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    const leaf =
      (params.missingProperty as string | undefined) ?? (params.additionalProperty as string | undefined);
    const field = [path, leaf].filter(Boolean).join('.') || (fe.validationContext ?? 'body');
    const why =
      params.additionalProperty !== undefined ? 'is not a known field' : (first?.message ?? 'is invalid');
    const where = fe.validationContext ?? 'body';
    return {
      status: 400,
      body: { error: { code: CODE.INVALID_INPUT, message: `${where} field '${field}' ${why}`, field } },
      internal: false,
    };
  }
  const code = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (code === CODE.PAYLOAD_TOO_LARGE) {
    const message = limit
      ? `the request body is over the ${limit}-byte limit`
      : 'the request body is too large';
    return { status: 413, body: { error: { code, message } }, internal: false };
  }
  if (code === CODE.UNSUPPORTED_MEDIA_TYPE) {
    const message = 'the request body must be JSON (Content-Type: application/json)';
    return { status: 415, body: { error: { code, message } }, internal: false };
  }
  if (code) {
    return {
      status: httpStatusOf(code)!,
      body: { error: { code, message: fe.message ?? code } },
      internal: false,
    };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Another client error of Fastify's (a malformed URL, a bad header): its message is safe.
    return {
      status: fe.statusCode,
      body: { error: { code: fe.code ?? 'BAD_REQUEST', message: fe.message ?? 'bad request' } },
      internal: false,
    };
  }
  return {
    status: 500,
    body: { error: { code: CODE.INTERNAL, message: 'internal error (logged by the server)' } },
    internal: true,
  };
}

/** Installs errorReply as the error and not-found handler. */
export function installErrorReplies(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err, request, reply) => {
    const { status, body, internal } = errorReply(err, bodyLimit);
    if (internal) request.log.error({ err }, 'request failed');
    if (status === 401) void reply.header('www-authenticate', 'Bearer realm="machinist"');
    // Refused before its body has all arrived (a bad token, too large, not JSON): close the
    // connection with the answer, rather than read the rest at whatever pace the client sends.
    if (!request.raw.complete) void reply.header('connection', 'close');
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: { code: CODE.NOT_FOUND, message: `no route ${request.method} ${request.url.split('?')[0]}` },
    } satisfies ErrorBody),
  );
}
