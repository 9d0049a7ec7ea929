// A loopback TCP proxy in front of Redis that loses replies: while `dropRate` > 0, each chunk
// the server sends back is, with that probability, not relayed; both sockets are closed
// instead. The command the chunk answered was applied by Redis; its client sees the
// connection drop, reconnects and (ioredis) sends the unanswered commands again (T6).

import { createServer, Socket, type Server } from 'node:net';
import { rng } from './mix.js';

export class ReplyDroppingProxy {
  /** The probability that a reply chunk is dropped (0: a plain relay). */
  dropRate = 0;
  dropped = 0;
  relayed = 0;
  private readonly sockets = new Set<Socket>();
  private readonly rand: () => number;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    seed: number,
  ) {
    this.rand = rng(seed);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(target: { host: string; port: number }, seed: number): Promise<ReplyDroppingProxy> {
    const holder: { proxy?: ReplyDroppingProxy } = {};
    const server = createServer((client) => holder.proxy?.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    holder.proxy = new ReplyDroppingProxy(server, typeof addr === 'object' && addr ? addr.port : 0, seed);
    return holder.proxy;
  }

  accept(client: Socket, target: { host: string; port: number }): void {
    const upstream = new Socket();
    this.sockets.add(client);
    this.sockets.add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
    upstream.connect(target.port, target.host);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      if (this.dropRate > 0 && this.rand() < this.dropRate) {
        this.dropped++;
        close();
        return;
      }
      this.relayed++;
      client.write(d);
    });
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
