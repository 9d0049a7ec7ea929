// One job made ready to store: built and checked (buildNewJob.ts) and, when tracing, its
// `publish <queue>` span started, whose context is stored with the job (its attempts link to it).
// The span ends once the job's write is answered (endPublish).

import type { Context } from '@opentelemetry/api';
import type { EnqueueOptions } from './validateEnqueue.js';
import { buildNewJob, type BuiltJob, type MachineFacts } from './buildNewJob.js';
import { loadOtel, otelLoaded } from '../tracing/otel.js';
import { startPublishSpan, type PublishSpan } from '../tracing/publishSpan.js';

export type Prepared = BuiltJob & { publish?: PublishSpan };

export class JobPreparer {
  constructor(
    private readonly tracing: boolean,
    private readonly defaults: { queue: string; maxPayloadBytes: number },
  ) {
    if (this.tracing) void loadOtel();
  }

  /**
   * The optional tracing API's first load, while it is under way (once per process); undefined
   * once it is done, so an enqueue waits for nothing (not even a microtask) after that.
   */
  tracingLoad(): Promise<unknown> | undefined {
    return this.tracing && otelLoaded() === undefined ? loadOtel() : undefined;
  }

  /**
   * One job built (buildNewJob: every check); a Promise only when its input schema is async.
   * `child`: a fan-out child's fixed id and its parent attempt's trace context.
   */
  prepare(
    machine: string,
    input: unknown,
    options: EnqueueOptions | undefined,
    info: MachineFacts,
    child?: { id: string; trace: unknown },
  ): Prepared | Promise<Prepared> {
    // Loaded by tracingLoad() before any prepare; undefined/null: no tracing here.
    const api = this.tracing ? otelLoaded() : undefined;
    let publish: PublishSpan | undefined;
    const built = buildNewJob(
      machine,
      input,
      options,
      info,
      this.defaults,
      api
        ? (queue, id) =>
            (publish = startPublishSpan(api, queue, id, machine, child?.trace as Context | undefined))
              ?.traceparent
        : undefined,
      child?.id,
    );
    const withSpan = (b: BuiltJob): Prepared => (publish ? { ...b, publish } : b);
    return built instanceof Promise ? built.then(withSpan) : withSpan(built);
  }
}

/** Ends publish spans once their write is answered (with its error, if it failed). */
export async function endPublish<T>(written: Promise<T>, ...spans: PublishSpan[]): Promise<T> {
  try {
    const v = await written;
    for (const s of spans) s.end();
    return v;
  } catch (err) {
    for (const s of spans) s.end(err);
    throw err;
  }
}
