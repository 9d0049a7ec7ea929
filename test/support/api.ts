// A real HTTP API for a test: createServer on a random loopback port over a store on the test's
// private redis-server, fetch helpers that send the test token, and a server-sent-events reader.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { pino } from 'pino';
import { createServer, RedisStore, type ServerOptions } from '../../src/index.js';
import { eventually, uniquePrefix, type TestRedis } from './redis.js';

export const TOKEN = 'test-token-read-write';
export const READ_TOKEN = 'test-token-read-only';

export interface Api {
  url: string;
  store: RedisStore;
  prefix: string;
  app: ReturnType<typeof createServer>;
  call(
    method: string,
    path: string,
    options?: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string | null },
  ): Promise<{ status: number; headers: Headers; json: any; text: string }>;
  close(): Promise<void>;
}

export async function startApi(
  redis: TestRedis,
  options: Partial<ServerOptions> & { commandTimeoutMs?: number } = {},
): Promise<Api> {
  const prefix = uniquePrefix('http');
  const { commandTimeoutMs, ...serverOptions } = options;
  const store = new RedisStore({ url: redis.url, prefix, commandTimeoutMs: commandTimeoutMs ?? 2000 });
  const app = createServer({
    store,
    tokens: [TOKEN, { token: READ_TOKEN, scopes: ['read'] }],
    logger: pino({ level: process.env.MACHINIST_LOG ?? 'silent' }),
    ...serverOptions,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    store,
    prefix,
    app,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      const token = o.token === undefined ? TOKEN : o.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      let body: string | undefined = o.raw;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let json: any;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, json, text };
    },
    async close() {
      await app.close();
      await store.close();
    },
  };
}

export interface SseMessage {
  id?: string;
  event?: string;
  data?: any;
  comment?: string;
}

/** A server-sent-events response read as it arrives. */
export interface SseReader {
  status: number;
  messages: SseMessage[];
  /** Resolves once a message matching `match` has arrived (bounded wait). */
  until(match: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  ended: Promise<void>;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const messages: SseMessage[] = [];
      let buffer = '';
      const ended = new Promise<void>((r) => {
        res.on('end', r);
        res.on('close', r);
        res.on('error', () => r());
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          const m: SseMessage = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) m.comment = line.slice(1).trim();
            else if (line.startsWith('id: ')) m.id = line.slice(4);
            else if (line.startsWith('event: ')) m.event = line.slice(7);
            else if (line.startsWith('data: ')) m.data = JSON.parse(line.slice(6));
          }
          messages.push(m);
        }
      });
      resolve({
        status: res.statusCode ?? 0,
        messages,
        until: async (match, timeoutMs = 10_000) =>
          (await eventually(() => messages.find(match), timeoutMs))!,
        ended,
        close: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.end();
  });
}
