// A loopback webhook receiver for the tests: records every request and answers with the
// statuses a test lines up (then 200).

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Per path: statuses to answer, in order (then 200); or a function. */
  readonly answers = new Map<string, (number | { status: number; location: string })[]>();
  private server: Server | undefined;
  port = 0;

  async start(port = 0, host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body });
        const a = this.answers.get(path)?.shift() ?? 200;
        if (typeof a === 'number') res.writeHead(a).end('ok');
        else res.writeHead(a.status, { location: a.location }).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
}

/** A Standard Webhooks secret: whsec_ + base64 of 32 random bytes. */
export function newSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return 'whsec_' + Buffer.from(bytes).toString('base64');
}
