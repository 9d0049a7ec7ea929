// A worker's own /metrics endpoint (machinist worker --metrics-port): a bare node:http server,
// so a worker process needs no web framework to be scraped.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MachinistMetrics } from './MachinistMetrics.js';

export interface MetricsServer {
  /** `http://host:port` it listens on. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(options: {
  metrics: MachinistMetrics;
  port: number;
  host?: string;
}): Promise<MetricsServer> {
  const { metrics } = options;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.text().then(
      (text) =>
        res
          .writeHead(200, { 'content-type': metrics.contentType })
          .end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) =>
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics failed: ${(err as Error).message}\n`),
    );
  });
  // A scrape holds no connection open between scrapes: stop() must not wait for idle sockets.
  server.keepAliveTimeout = 1000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
