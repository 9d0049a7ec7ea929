// Server-sent events read with fetch rather than EventSource: EventSource cannot send the
// Authorization header the API's bearer auth needs. Reconnects with Last-Event-ID after a drop,
// so no event between two connections is missed (the API resumes from the queue's stream).

import { authHeaders } from './api.js';

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

export interface SseHandle {
  close(): void;
}

const live = new Set<AbortController>();
/** Each open stream's state, for the header's indicator: live when every one is connected. */
const states = new Map<AbortController, boolean>();

/** Follows `path`; after the server ends the stream it reconnects, unless `done()` says not to. */
export function openSse(path: string, onMessage: (m: SseMessage) => void, done?: () => boolean): SseHandle {
  const ctrl = new AbortController();
  live.add(ctrl);
  let lastId: string | null = null;
  const run = async () => {
    let backoff = 500;
    while (!ctrl.signal.aborted) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders() };
        if (lastId) headers['last-event-id'] = lastId;
        const res = await fetch(path, { headers, signal: ctrl.signal });
        // A resume of a job stream after its final record: nothing more will come.
        if (res.status === 204) return setLive(ctrl, null);
        if (!res.ok || !res.body) throw new Error(`${res.status}`);
        setLive(ctrl, true);
        backoff = 500;
        await readStream(res.body, (m) => {
          if (m.id) lastId = m.id;
          onMessage(m);
        });
      } catch {
        if (ctrl.signal.aborted) return;
        // A failed connection: say so while waiting to try again.
        setLive(ctrl, false);
      }
      // Ended by the server (the job finished, or the server closed the stream): not a fault.
      // The page may learn it is done only after the last message (a refresh it started), so
      // it is asked again after the wait, before reconnecting.
      if (done?.()) return setLive(ctrl, null);
      await new Promise((r) => setTimeout(r, backoff));
      if (done?.()) return setLive(ctrl, null);
      backoff = Math.min(backoff * 2, 10_000);
    }
  };
  void run();
  return {
    close() {
      ctrl.abort();
      live.delete(ctrl);
      setLive(ctrl, null);
    },
  };
}

async function readStream(
  body: ReadableStream<Uint8Array>,
  onMessage: (m: SseMessage) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buf.search(/\r?\n\r?\n/)) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end).replace(/^\r?\n\r?\n/, '');
      const m: SseMessage = { id: null, event: 'message', data: '' };
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (!line || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(val);
        else if (field === 'event') m.event = val;
        else if (field === 'id') m.id = val;
      }
      if (data.length === 0) continue;
      m.data = data.join('\n');
      onMessage(m);
    }
  }
}

/** Records one stream's state (null: it ended) and shows the sum in the header. */
function setLive(ctrl: AbortController, on: boolean | null): void {
  if (on === null) states.delete(ctrl);
  else states.set(ctrl, on);
  const el = document.getElementById('live');
  if (!el) return;
  const all = [...states.values()];
  const ok = all.length > 0 && all.every(Boolean);
  el.textContent = ok ? 'live' : all.length ? 'reconnecting…' : 'not following';
  el.classList.toggle('on', ok);
}

/** Closes every stream a page opened (the router calls it when leaving the page). */
export function closeAllSse(): void {
  for (const c of live) c.abort();
  live.clear();
  states.clear();
}

/** Calls `fn` at most once per `ms`, with the latest arguments (live events come in bursts). */
export function throttle(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending = false;
  return () => {
    if (timer) {
      pending = true;
      return;
    }
    fn();
    timer = setTimeout(() => {
      timer = null;
      if (pending) {
        pending = false;
        fn();
      }
    }, ms);
  };
}
