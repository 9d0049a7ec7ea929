// One server-sent-events response: takes the socket over from Fastify (reply.hijack), writes
// events and heartbeat comments, and ends cleanly when the client goes, when the server
// closes, or when a client reads so slowly that its unsent output passes a bound (it then
// resumes with Last-Event-ID instead of growing the server's memory).

import type { FastifyReply, FastifyRequest } from 'fastify';

/** Unsent bytes past which a stream is ended (the client resumes from its last id). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export class SseStream {
  private ended = false;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly onEnd = new Set<() => void>();

  constructor(
    request: FastifyRequest,
    private readonly reply: FastifyReply,
    heartbeatMs: number,
    /** The streams open now: the server ends them all before it closes. */
    private readonly registry: Set<SseStream>,
  ) {
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // Tells EventSource how soon to reconnect after the stream ends.
    reply.raw.write('retry: 2000\n\n');
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), heartbeatMs);
    request.raw.once('close', () => this.end());
    reply.raw.once('close', () => this.end());
    reply.raw.on('error', () => this.end());
    registry.add(this);
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Runs `fn` once the stream has ended, whoever ended it. */
  onClose(fn: () => void): void {
    if (this.ended) fn();
    else this.onEnd.add(fn);
  }

  send(message: { id?: string; event?: string; data: unknown }): void {
    let text = '';
    if (message.id) text += `id: ${message.id}\n`;
    if (message.event) text += `event: ${message.event}\n`;
    // JSON.stringify escapes newlines: the data is one line.
    text += `data: ${JSON.stringify(message.data)}\n\n`;
    this.write(text);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.registry.delete(this);
    if (!this.reply.raw.writableEnded) this.reply.raw.end();
    for (const fn of this.onEnd) {
      try {
        fn();
      } catch {
        // a cleanup's failure must not stop the others
      }
    }
    this.onEnd.clear();
  }

  private write(text: string): void {
    if (this.ended) return;
    if (this.reply.raw.writableLength > MAX_BUFFERED_BYTES) return this.end();
    this.reply.raw.write(text);
  }
}
