// The W3C `traceparent` form of a span context: how an enqueue's span travels in the job's
// options to the worker that runs it (`00-<trace id>-<span id>-<flags>`). Written by hand so
// no propagator needs to be registered.

import type { SpanContext } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function formatTraceparent(ctx: SpanContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The span context a traceparent names, or undefined when it is not one (all-zero ids included). */
export function parseTraceparent(text: unknown): SpanContext | undefined {
  if (typeof text !== 'string') return undefined;
  const m = TRACEPARENT.exec(text);
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined;
  return { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true };
}
