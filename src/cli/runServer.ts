// The HTTP API (and, with `worker`, a supervisor in the same process) run until SIGTERM or
// SIGINT: what `machinist serve` and `machinist dev` share.
//
// Shutdown: the first signal closes the server (live streams end, requests in flight finish),
// stops the supervisor within its grace, closes the store and exits 0 (143 when the supervisor
// had to force); a second signal exits at once.
//
// Tokens come from MACHINIST_TOKENS. Without any the API is served on a loopback address only:
// an API that can enqueue and cancel jobs is never left open on a network by default.

import { createServer as createNetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createServer, serverMetrics, type ServerOptions } from '../http/createServer.js';
import { parseTokenList } from '../http/auth.js';
import type { TokenSpec } from '../http/auth.js';
import type { AnyDefinition } from '../runtime/registry.js';
import { hasServerChecks, type Store } from '../store/types.js';
import { Supervisor } from '../supervisor/Supervisor.js';
import { CliError } from './CliError.js';
import { EXIT_FORCED } from './actions/worker.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export interface Address {
  port: number;
  host: string;
  /** The port was asked for (flag or PORT), not the default. */
  portGiven: boolean;
  tokens: (string | TokenSpec)[];
}

/** Port (flag, else PORT, else 8080), host (flag, else HOST, else 127.0.0.1) and the tokens. */
export function listenAddress(flags: { port?: number; host?: string }): Address {
  let port = 8080;
  let portGiven = true;
  const env = process.env.PORT;
  if (flags.port !== undefined) port = flags.port;
  else if (env !== undefined && env !== '') {
    if (!/^\d+$/.test(env) || Number(env) > 65535)
      throw new CliError(`PORT must be a port number (got '${env}')`);
    port = Number(env);
  } else portGiven = false;
  const host = flags.host ?? (process.env.HOST || '127.0.0.1');
  const tokens = parseTokenList(process.env.MACHINIST_TOKENS ?? '');
  if (tokens.length === 0 && !LOOPBACK.has(host))
    throw new CliError(
      `set MACHINIST_TOKENS to serve on ${host}: without tokens the API is served on loopback only`,
    );
  return { port, host, portGiven, tokens };
}

export interface RunServerOptions {
  /** The command's name, for its lines on stderr. */
  name: string;
  address: Address;
  /** When the default port is taken, listen on a free one instead of failing. */
  anyPortIfTaken?: boolean;
  store: Store;
  jobs?: readonly AnyDefinition[];
  triggers?: ServerOptions['triggers'];
  queue: string;
  dashboard: ServerOptions['dashboard'];
  /** createServer's error-stack and connection limits (`serve` flags); createServer's defaults otherwise. */
  server?: Pick<
    ServerOptions,
    'exposeErrorStacks' | 'requestTimeoutMs' | 'connectionTimeoutMs' | 'maxConnections'
  >;
  /** Also run a supervisor for `jobs` on `queue`. */
  worker?: { concurrency: number; graceMs: number; logger?: Logger; webhookAllowHosts?: string[] };
  /** Closes the store (and whatever else the command opened) at the end. */
  close(): Promise<void>;
}

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  supervisor: Supervisor | undefined;
}

/** Whether `port` can be listened on at `host` now. */
function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

export async function runServer(o: RunServerOptions): Promise<RunningServer> {
  let app: FastifyInstance;
  let supervisor: Supervisor | undefined;
  try {
    app = createServer({
      store: o.store,
      jobs: o.jobs,
      triggers: o.triggers,
      queue: o.queue,
      tokens: o.address.tokens,
      auth: o.address.tokens.length > 0,
      dashboard: o.dashboard,
      ...o.server,
    });
    // The in-process supervisor's jobs and webhooks count in the server's /metrics.
    const metrics = serverMetrics(app);
    if (o.worker && o.jobs)
      supervisor = new Supervisor({
        store: o.store,
        jobs: o.jobs,
        queue: o.queue,
        concurrency: o.worker.concurrency,
        webhookAllowHosts: o.worker.webhookAllowHosts,
        observers: metrics ? [metrics] : [],
        // One job's stray error fails that job, not the server and every job in it.
        isolateStrayErrors: true,
        ...(o.worker.logger ? { logger: o.worker.logger } : {}),
      });
  } catch (err) {
    await o.close();
    throw new CliError((err as Error).message);
  }
  const server = app;

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      console.error(`machinist ${o.name}: ${signal} again: exiting`);
      process.exit(EXIT_FORCED);
    }
    console.error(`machinist ${o.name}: ${signal}: stopping`);
    void (async () => {
      let code = 0;
      try {
        await server.close();
        if (supervisor && o.worker)
          code = (await supervisor.stop({ graceMs: o.worker.graceMs })).forced ? EXIT_FORCED : 0;
      } catch (err) {
        console.error(`machinist ${o.name}: stop failed: ${(err as Error).message}`);
        code = 1;
      }
      await o.close();
      console.error(`machinist ${o.name}: stopped`);
      process.exit(code);
    })();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    // A store of another data format is refused before the API serves it (the supervisor checks too).
    if (hasServerChecks(o.store)) await o.store.checkFormat();
    await supervisor?.start();
    const { host } = o.address;
    let { port } = o.address;
    if (o.anyPortIfTaken && port !== 0 && !(await portFree(port, host))) {
      console.error(`machinist ${o.name}: port ${port} is taken; listening on a free one (--port to choose)`);
      port = 0;
    }
    const url = await server.listen({ port, host });
    return { url, app: server, supervisor };
  } catch (err) {
    await server.close().catch(() => undefined);
    await supervisor?.stop({ graceMs: 0 }).catch(() => undefined);
    await o.close();
    throw new CliError(`${o.name} failed to start: ${(err as Error).message}`);
  }
}
