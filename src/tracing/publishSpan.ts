// The `publish <queue>` span of an enqueue (a PRODUCER span, child of whatever span is active
// in the caller, or of the parent job's attempt for a fan-out's children): started before the job is written, ended once the write is answered. Its
// context is stored in the job's options as a traceparent, for the attempts to link to.

import type { Context } from '@opentelemetry/api';
import { activeTracer, type OtelApi } from './otel.js';
import { formatTraceparent } from './traceparent.js';
import { messagingAttributes } from './messagingAttributes.js';

export interface PublishSpan {
  /** The span's context, to store with the job. */
  readonly traceparent: string;
  /** Ends the span when the write is answered; with an error when it failed. */
  end(err?: unknown): void;
}

/**
 * Undefined when no tracer provider is registered: nothing is started. `parent`: the context to
 * start under (a parent job's attempt, for its children), else the caller's active one.
 */
export function startPublishSpan(
  api: OtelApi,
  queue: string,
  jobId: string,
  machine: string,
  parent?: Context,
): PublishSpan | undefined {
  const tracer = activeTracer(api);
  if (!tracer) return undefined;
  const span = tracer.startSpan(
    `publish ${queue}`,
    {
      kind: api.SpanKind.PRODUCER,
      attributes: messagingAttributes('publish', queue, jobId, machine),
    },
    parent ?? api.context.active(),
  );
  const ctx = span.spanContext();
  if (!api.isSpanContextValid(ctx)) {
    span.end();
    return undefined;
  }
  return {
    traceparent: formatTraceparent(ctx),
    end(err?: unknown) {
      if (err !== undefined) {
        const message = err instanceof Error ? err.message : 'enqueue failed';
        if (err instanceof Error) span.recordException(err);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message });
      }
      span.end();
    },
  };
}
