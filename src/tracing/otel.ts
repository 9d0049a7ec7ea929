// @opentelemetry/api is an optional peer dependency: it is import()ed once, on first need, so
// Machinist runs where it is not installed. Spans start only when a tracer provider is
// registered: without one, nothing is created per job (activeTracer returns undefined).

import type * as OtelApiModule from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';

export type OtelApi = typeof OtelApiModule;

/** The instrumentation scope of every span Machinist starts. */
export const TRACER_NAME = 'machinist';

let loading: Promise<OtelApi | null> | undefined;
let loaded: OtelApi | null | undefined;

/** Loads the API (once); null when it is not installed. */
export function loadOtel(): Promise<OtelApi | null> {
  loading ??= import('@opentelemetry/api').then(
    (m) => (loaded = m),
    () => (loaded = null),
  );
  return loading;
}

/** The API if loadOtel() finished (null: not installed), undefined while it has not. */
export function otelLoaded(): OtelApi | null | undefined {
  return loaded;
}

/**
 * The registered provider's tracer, or undefined when no provider is registered. The API's
 * global provider is a proxy that hands out no-op tracers until one is set; asking the proxy
 * for its delegate tells the two apart without starting a span.
 */
export function activeTracer(api: OtelApi): Tracer | undefined {
  const provider = api.trace.getTracerProvider();
  if (provider instanceof api.ProxyTracerProvider) return provider.getDelegateTracer(TRACER_NAME);
  return provider.getTracer(TRACER_NAME);
}
