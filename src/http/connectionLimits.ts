// How long a connection may take and how many there may be, so that slow or idle clients cannot
// hold the server's sockets (Fastify and Node set no request timeout, no idle timeout and no cap
// by default: 500 slow-body connections were all still open after 2 s).
//
// - requestTimeoutMs: the whole request (headers and body) must arrive within it, else 408 and
//   the socket is closed (Node's server.requestTimeout; its headersTimeout is kept within it,
//   and the check runs often enough to keep to it).
// - connectionTimeoutMs: a socket silent for this long is closed (Node's socket timeout). It
//   must outlast the longest `?wait` (which sends nothing while it waits) and a live stream's
//   heartbeat interval: smaller values are refused.
// - maxConnections: sockets past it are closed at once (Node's server.maxConnections); each live
//   stream holds one.

export interface ConnectionLimitOptions {
  /** The whole request (headers and body) must arrive within it, else 408. Default 30 s. */
  requestTimeoutMs?: number;
  /** A socket silent this long is closed; longer than maxWaitMs and heartbeatMs. Default maxWaitMs + 30 s. */
  connectionTimeoutMs?: number;
  /** Sockets past it are closed at once (each live stream holds one). Default 10,000. */
  maxConnections?: number;
}

export interface ConnectionLimits {
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  maxConnections: number;
  /** Node's headersTimeout: at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** How often Node checks requests against their timeouts (its default is 30 s). */
  checkIntervalMs: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Beyond the longest `?wait`: the default idle timeout is maxWaitMs plus this. */
export const IDLE_MARGIN_MS = 30_000;
export const DEFAULT_MAX_CONNECTIONS = 10_000;
/** Node's own default headersTimeout. */
const HEADERS_TIMEOUT_MS = 60_000;

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`createServer: ${name} must be a positive integer (got ${value})`);
  return value;
}

/** The limits with their defaults, checked against the longest wait and the heartbeat. */
export function connectionLimits(
  options: ConnectionLimitOptions,
  maxWaitMs: number,
  heartbeatMs: number,
): ConnectionLimits {
  const requestTimeoutMs = positiveInteger(
    'requestTimeoutMs',
    options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  );
  const connectionTimeoutMs = positiveInteger(
    'connectionTimeoutMs',
    options.connectionTimeoutMs ?? maxWaitMs + IDLE_MARGIN_MS,
  );
  if (connectionTimeoutMs <= maxWaitMs || connectionTimeoutMs <= heartbeatMs)
    throw new TypeError(
      `createServer: connectionTimeoutMs (${connectionTimeoutMs}) must be longer than maxWaitMs (${maxWaitMs}) ` +
        `and heartbeatMs (${heartbeatMs}): a ?wait or an idle live stream sends nothing meanwhile`,
    );
  const maxConnections = positiveInteger('maxConnections', options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  return {
    requestTimeoutMs,
    connectionTimeoutMs,
    maxConnections,
    headersTimeoutMs: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
    checkIntervalMs: Math.min(5_000, Math.max(100, Math.floor(requestTimeoutMs / 4))),
  };
}
