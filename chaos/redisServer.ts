// The private redis-server of one chaos test: a random free loopback port, its own data
// directory, AOF on (appendfsync everysec or always), noeviction. It can be killed with -9 and
// started again on the same port and directory (it reloads its AOF), and it carries the
// operator's levers the faults pull: DEBUG SLEEP, a busy script, CLIENT KILL, maxmemory.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { spawnProc, type Proc } from './procs.js';

export interface ChaosRedisOptions {
  appendfsync?: 'everysec' | 'always';
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

async function answers(port: number): Promise<boolean> {
  const probe = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    // LOADING replies while the AOF is read: not ready yet.
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export class ChaosRedis {
  readonly url: string;
  private proc: Proc | undefined;
  /** A connection for the fault levers and the checker (never a worker's). */
  readonly admin: Redis;

  private constructor(
    readonly port: number,
    readonly dir: string,
    readonly appendfsync: 'everysec' | 'always',
  ) {
    this.url = `redis://127.0.0.1:${port}`;
    this.admin = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: null, lazyConnect: true });
    this.admin.on('error', () => {});
  }

  static async start(options: ChaosRedisOptions = {}): Promise<ChaosRedis> {
    const r = new ChaosRedis(
      await freePort(),
      mkdtempSync(join(tmpdir(), 'machinist-chaos-redis-')),
      options.appendfsync ?? 'everysec',
    );
    await r.launch();
    await r.admin.connect();
    return r;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  private async launch(): Promise<void> {
    // prettier-ignore
    const args = [
      '--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '',
      '--appendonly', 'yes', '--appendfsync', this.appendfsync, '--maxmemory-policy', 'noeviction',
      // DEBUG SLEEP (the stall faults) from loopback only.
      '--enable-debug-command', 'local',
      // A script running longer than this gets BUSY replies sent to everyone else (T5).
      '--busy-reply-threshold', '500',
    ];
    this.proc = spawnProc('redis-server', args, { stderr: 'ignore' });
    const end = Date.now() + 15_000;
    while (Date.now() < end) {
      if (!this.proc.alive()) throw new Error('redis-server exited at start');
      if (await answers(this.port)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`redis-server on port ${this.port} did not answer within 15 s`);
  }

  /** kill -9 the server. */
  async kill9(): Promise<void> {
    await this.proc?.kill();
  }

  /** Starts the server again on the same port and directory (it reloads its AOF). */
  async restart(): Promise<void> {
    await this.launch();
  }

  /** DEBUG SLEEP on a connection of its own: the whole server stops answering for `ms`. */
  async stall(ms: number): Promise<void> {
    const c = new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: null });
    c.on('error', () => {});
    try {
      await c.call('DEBUG', 'SLEEP', String(ms / 1000));
    } finally {
      c.disconnect();
    }
  }

  /**
   * A script that spins for `ms` before SCRIPT KILL ends it: past busy-reply-threshold (500 ms)
   * every other client gets BUSY error replies.
   */
  async busyScript(ms: number): Promise<void> {
    const c = new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: null });
    c.on('error', () => {});
    // Connected (and past its INFO ready check) before the spin: a connection opened during it
    // gets BUSY to its ready check and never becomes ready.
    const k = new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: null });
    k.on('error', () => {});
    await Promise.all([c.ping(), k.ping()]);
    const spinning = c.eval('while true do end', 0).catch(() => undefined);
    await new Promise((r) => setTimeout(r, ms));
    try {
      for (let i = 0; ; i++) {
        try {
          await k.script('KILL');
          break;
        } catch (err) {
          // NOTBUSY: ended already; anything else: try again shortly, for 5 s at most.
          if (/NOTBUSY/.test((err as Error).message)) break;
          if (i >= 250)
            throw new Error(`SCRIPT KILL kept failing: ${(err as Error).message}`, { cause: err });
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      await spinning;
    } finally {
      k.disconnect();
      c.disconnect();
    }
  }

  /** Drops every normal client connection (the admin's own is skipped). */
  async dropClients(): Promise<number> {
    return Number(await this.admin.call('CLIENT', 'KILL', 'TYPE', 'normal'));
  }

  /** Sets maxmemory to what is used now plus `headroom` bytes (0 lifts the limit). */
  async squeezeMemory(headroom: number | null): Promise<void> {
    if (headroom === null) {
      await this.admin.config('SET', 'maxmemory', '0');
      return;
    }
    const info = await this.admin.info('memory');
    const used = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
    await this.admin.config('SET', 'maxmemory', String(used + headroom));
  }

  async stop(): Promise<void> {
    this.admin.disconnect();
    await this.proc?.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
