// Traces attempts: each attempt is a `process <queue>` CONSUMER span linked to the enqueue's
// `publish` span (its traceparent travels in the job's options), and each state a pipeline's
// machine settles in is a `step <state>` child span of it, ended when the machine leaves that
// state or the attempt ends. Without a registered tracer provider no span is started.

import type { Context, Link, Span, Tracer } from '@opentelemetry/api';
import type { AttemptEnd, AttemptInfo, AttemptWatch, JobObserver } from '../runtime/JobObserver.js';
import type { AnyDefinition } from '../runtime/registry.js';
import { machineLabel, stateLabel } from '../runtime/stateLabels.js';
import { activeTracer, loadOtel, type OtelApi } from './otel.js';
import { parseTraceparent } from './traceparent.js';
import { messagingAttributes } from './messagingAttributes.js';

/** Endings that are an error of the attempt (a retry is one: the attempt failed). */
const ERROR_ENDINGS: ReadonlySet<AttemptEnd> = new Set(['failed', 'retry', 'broken', 'lease-lost']);

/** The tracing observer, or undefined when @opentelemetry/api is not installed. */
export async function attemptTracer(): Promise<JobObserver | undefined> {
  const api = await loadOtel();
  return api ? new AttemptTracer(api) : undefined;
}

function publishLinks(options: string | undefined): Link[] {
  if (!options || !options.includes('traceparent')) return [];
  try {
    const ctx = parseTraceparent((JSON.parse(options) as { traceparent?: unknown } | null)?.traceparent);
    return ctx ? [{ context: ctx }] : [];
  } catch {
    return [];
  }
}

class AttemptTracer implements JobObserver {
  constructor(private readonly api: OtelApi) {}

  attemptStarted(info: AttemptInfo): AttemptWatch | undefined {
    const tracer = activeTracer(this.api);
    if (!tracer) return undefined;
    const machine = machineLabel(info.definition);
    const span = tracer.startSpan(
      `process ${info.queue}`,
      {
        kind: this.api.SpanKind.CONSUMER,
        attributes: {
          ...messagingAttributes('process', info.queue, info.id, machine),
          'machinist.attempt': info.attempt,
        },
        links: publishLinks(info.options),
      },
      // Its own trace, linked (not parented) to the publish: as the messaging conventions
      // advise for work that may run long after, and more than once.
      this.api.ROOT_CONTEXT,
    );
    return new AttemptSpans(this.api, tracer, span, info.definition, machine);
  }
}

class AttemptSpans implements AttemptWatch {
  private readonly ctx: Context;
  private step: Span | undefined;
  private stepLabel: string | undefined;

  constructor(
    private readonly api: OtelApi,
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly def: AnyDefinition | undefined,
    private readonly machine: string,
  ) {
    this.ctx = api.trace.setSpan(api.ROOT_CONTEXT, span);
  }

  state(valueText: string): void {
    // A simple job's load/work phases are the attempt itself: only pipelines get step spans.
    if (this.def?.kind !== 'pipeline') return;
    const label = stateLabel(this.def, valueText);
    if (label === this.stepLabel) return;
    this.step?.end();
    this.stepLabel = label;
    this.step = this.tracer.startSpan(
      `step ${label}`,
      { attributes: { 'machinist.machine': this.machine, 'machinist.state': label } },
      this.ctx,
    );
  }

  trace(): Context {
    return this.step ? this.api.trace.setSpan(this.api.ROOT_CONTEXT, this.step) : this.ctx;
  }

  end(how: AttemptEnd): void {
    this.step?.end();
    this.span.setAttribute('machinist.outcome', how);
    if (ERROR_ENDINGS.has(how)) this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: how });
    this.span.end();
  }
}
