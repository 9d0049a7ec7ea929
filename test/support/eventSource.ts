// An EventSource as the WHATWG HTML standard defines it (§9.2 "Server-sent events"), for tests:
// Node 20 has no global EventSource and the `eventsource` package is not a dependency, so this
// follows the standard's processing model over fetch, with the behaviour a browser has:
// - a response that is not 200 with `text/event-stream` (204 among them) fails the connection:
//   readyState CLOSED, no reconnection;
// - the stream's end reestablishes the connection after the reconnection time (`retry:`),
//   sending the last event ID seen as `Last-Event-ID`;
// - `id:` sets the last event ID buffer, which becomes the last event ID at each dispatch (and
//   stays for later messages without an id); `data:` lines join with newlines; a message with no
//   data is not dispatched.
// Plus what a test needs: the headers to send (the API's bearer token), and a count of the
// connections made.

export const CONNECTING = 0;
export const OPEN = 1;
export const CLOSED = 2;

export interface EventSourceMessage {
  type: string;
  data: string;
  lastEventId: string;
}

export class TestEventSource {
  readyState = CONNECTING;
  /** Every message dispatched, in order. */
  readonly messages: EventSourceMessage[] = [];
  /** Connections made (the first and every reestablished one), with their answers' statuses. */
  readonly connections: { lastEventId: string; status: number }[] = [];
  private lastEventId = '';
  private reconnectMs: number;
  private readonly abort = new AbortController();
  private closedWaiters: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string> = {},
    options: { reconnectMs?: number } = {},
  ) {
    this.reconnectMs = options.reconnectMs ?? 3000;
    void this.run();
  }

  /** Resolves once the source is CLOSED (the server told it to stop, or close() was called). */
  closed(): Promise<void> {
    if (this.readyState === CLOSED) return Promise.resolve();
    return new Promise((r) => this.closedWaiters.push(r));
  }

  close(): void {
    this.abort.abort();
    this.setClosed();
  }

  private setClosed(): void {
    this.readyState = CLOSED;
    for (const w of this.closedWaiters.splice(0)) w();
  }

  private async run(): Promise<void> {
    while (this.readyState !== CLOSED) {
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        'cache-control': 'no-cache',
        ...this.headers,
      };
      if (this.lastEventId !== '') headers['last-event-id'] = this.lastEventId;
      let res: Response;
      try {
        res = await fetch(this.url, { headers, signal: this.abort.signal });
      } catch {
        if (this.readyState === CLOSED) return;
        await this.wait(); // a network error: reestablish
        continue;
      }
      this.connections.push({ lastEventId: this.lastEventId, status: res.status });
      const type = res.headers.get('content-type') ?? '';
      if (res.status !== 200 || !/^text\/event-stream\b/i.test(type) || !res.body) {
        // "fail the connection": no reconnection.
        await res.body?.cancel();
        return this.setClosed();
      }
      this.readyState = OPEN;
      try {
        await this.read(res.body);
      } catch {
        // the connection broke: reestablish below, as on a clean end
      }
      if (this.readyState === CLOSED) return;
      this.readyState = CONNECTING;
      await this.wait();
    }
  }

  private wait(): Promise<void> {
    return new Promise((r) => setTimeout(r, this.reconnectMs));
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buf = '';
    let data: string[] = [];
    let type = '';
    let idBuffer = this.lastEventId;
    const reader = body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let m: RegExpExecArray | null;
      while ((m = /\r\n|\n|\r/.exec(buf)) && !(m[0] === '\r' && m.index === buf.length - 1)) {
        const line = buf.slice(0, m.index);
        buf = buf.slice(m.index + m[0].length);
        if (line === '') {
          // Dispatch.
          this.lastEventId = idBuffer;
          if (data.length > 0)
            this.messages.push({ type: type || 'message', data: data.join('\n'), lastEventId: idBuffer });
          data = [];
          type = '';
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(v);
        else if (field === 'event') type = v;
        else if (field === 'id' && !v.includes('\0')) idBuffer = v;
        else if (field === 'retry' && /^[0-9]+$/.test(v)) this.reconnectMs = Number(v);
      }
    }
  }
}
