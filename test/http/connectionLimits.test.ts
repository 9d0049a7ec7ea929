// The API server's connection limits, with real sockets: a request whose body never finishes
// arriving is closed once the request timeout passes (408), a refused request (bad token) with a
// body still arriving is closed with its answer instead of being drained at the client's pace,
// a socket that goes silent mid-request is closed after the idle timeout, and connections past
// the cap are closed at once. Scaled down from the attack it answers (500 slow-body connections
// with a bad token, all still open after 2 s): short timeouts and a small cap.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { createServer, MemoryStore, type ServerOptions } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, TOKEN, type Api } from '../support/api.js';

interface Conn {
  socket: Socket;
  received: string;
  closed: boolean;
}

describe('HTTP API connection limits', () => {
  let redis: TestRedis;
  let api: Api;
  const conns: Conn[] = [];
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    for (const c of conns.splice(0)) c.socket.destroy();
    await api.close();
  });

  /** A raw connection to the server, recording what it is sent and whether the server closed it. */
  async function open(): Promise<Conn> {
    const { port } = new URL(api.url);
    const socket = connect(Number(port), '127.0.0.1');
    const conn: Conn = { socket, received: '', closed: false };
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (conn.received += d));
    socket.on('close', () => (conn.closed = true));
    socket.on('error', () => (conn.closed = true));
    await new Promise<void>((resolve) => socket.once('connect', resolve).once('close', () => resolve()));
    conns.push(conn);
    return conn;
  }

  /** Headers of a POST /jobs announcing a 1,000-byte body, and its first bytes only. */
  function slowBody(conn: Conn, token: string): void {
    conn.socket.write(
      `POST /jobs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"machine":`,
    );
  }

  it('closes slow-body connections with a bad token at their 401, not at the client’s pace', async () => {
    // A request timeout far off: what closes them is the refusal itself.
    api = await startApi(redis, { requestTimeoutMs: 60_000 });
    const slow = await Promise.all(Array.from({ length: 50 }, () => open()));
    for (const c of slow) slowBody(c, 'not-the-token');
    // Keep trickling, as the attack does: a byte a connection every 100 ms.
    const trickle = setInterval(() => {
      for (const c of slow) if (!c.closed) c.socket.write(' ');
    }, 100);
    try {
      await eventually(() => slow.every((c) => c.closed), 10_000, 50).catch(() => undefined);
      const stillOpen = slow.filter((c) => !c.closed).length;
      assert.equal(stillOpen, 0, `${stillOpen} of 50 bad-token slow-body connections still open`);
      assert.ok(slow.every((c) => c.received.startsWith('HTTP/1.1 401')));
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes a request whose body does not arrive within requestTimeoutMs (408)', async () => {
    api = await startApi(redis, { requestTimeoutMs: 500 });
    const slow = await Promise.all(Array.from({ length: 20 }, () => open()));
    for (const c of slow) slowBody(c, TOKEN);
    await eventually(() => slow.every((c) => c.closed), 10_000, 50).catch(() => undefined);
    const stillOpen = slow.filter((c) => !c.closed).length;
    assert.equal(stillOpen, 0, `${stillOpen} of 20 slow-body connections still open`);
    assert.ok(slow.every((c) => c.received === '' || c.received.startsWith('HTTP/1.1 408')));
  });

  it('closes a connection that goes silent mid-request after connectionTimeoutMs', async () => {
    api = await startApi(redis, {
      requestTimeoutMs: 60_000,
      connectionTimeoutMs: 600,
      maxWaitMs: 500,
      heartbeatMs: 200,
    });
    const silent = await open();
    silent.socket.write('GET /healthz HTTP/1.1\r\nHost: loc'); // and nothing more
    await eventually(() => silent.closed, 10_000, 50).catch(() => undefined);
    assert.ok(silent.closed, 'the silent connection is still open');
  });

  it('closes connections past maxConnections at once; those within it are served', async () => {
    api = await startApi(redis, { maxConnections: 5, requestTimeoutMs: 60_000 });
    const all: Conn[] = [];
    for (let i = 0; i < 10; i++) all.push(await open());
    await eventually(() => all.filter((c) => c.closed).length >= 5, 10_000, 50).catch(() => undefined);
    assert.equal(all.filter((c) => c.closed).length, 5, 'five over the cap are closed');
    const kept = all.filter((c) => !c.closed);
    kept[0]!.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await eventually(() => kept[0]!.received.includes('\r\n\r\n'), 10_000, 50);
    assert.match(kept[0]!.received, /^HTTP\/1\.1 200/);
  });

  it('refuses limits that would cut off ?wait or an idle live stream', async () => {
    const store = new MemoryStore();
    const make = (o: Partial<ServerOptions>) => () =>
      createServer({ store, auth: false, logger: false, ...o });
    assert.throws(make({ connectionTimeoutMs: 1000, maxWaitMs: 5000 }), /connectionTimeoutMs/);
    assert.throws(make({ connectionTimeoutMs: 1000, heartbeatMs: 1000 }), /connectionTimeoutMs/);
    assert.throws(make({ requestTimeoutMs: 0 }), /requestTimeoutMs/);
    assert.throws(make({ maxConnections: 0 }), /maxConnections/);
    await store.close();
    api = { close: async () => undefined } as unknown as Api;
  });
});
