// A queue's flow controls on its overview card (docs/flow-control.md): paused or not, with a
// Pause / Resume button; its limits (total, perKey, the throttles: queue, key, machine) with their use now: running jobs
// against the total, and the keys with the most waiting jobs. Read from the API's own
// GET /queues/:queue/limits and changed through POST /queues/:queue/pause|resume, with the same
// bearer token as any client: the API's auth decides (a `write` token), the page only hides the
// button when the dashboard is read-only, as it does for a job's cancel and retry.

import { getJson, postJson } from './api.js';
import { h, notice } from './dom.js';
import { duration, time } from './format.js';
import type { KeyUse, QueueFlowView } from './types.js';

/**
 * Keys shown per queue at most. The API answers every key with running or waiting jobs (10,000
 * tenants are 10,000 rows); a card shows the few an operator acts on, the rest summed in a line.
 */
export const TOP_KEYS = 8;

export class FlowPanel {
  readonly el: HTMLElement;
  private readonly body = h('div');
  /** A failed pause or resume (kept until the next click). */
  private readonly message = h('div');
  /** A failed read (cleared by the next good one). */
  private readonly readError = h('div');
  private readonly button: HTMLButtonElement;
  /** The last view drawn; null until the first answer. */
  private view: QueueFlowView | null = null;

  constructor(
    private readonly queue: string,
    private readonly readOnly: boolean,
    /** Told after a pause or resume: jobs set aside for full keys went back to `queued`. */
    private readonly onChange: () => void = () => {},
  ) {
    this.button = h('button', {
      type: 'button',
      class: 'ghost',
      hidden: true,
      onclick: () => void this.flip(),
    });
    this.el = h(
      'div',
      {
        class: 'flow',
        role: 'group',
        'data-flow-queue': queue,
        'aria-label': `Flow control of queue ${queue}`,
      },
      this.body,
      this.readError,
      this.message,
    );
  }

  /** Reads the queue's gate and use again and redraws; errors are shown in the panel. */
  async refresh(): Promise<void> {
    try {
      this.draw(await getJson<QueueFlowView>(`/queues/${encodeURIComponent(this.queue)}/limits`));
      this.readError.replaceChildren();
    } catch (err) {
      this.readError.replaceChildren(notice((err as Error).message, 'error'));
    }
  }

  private async flip(): Promise<void> {
    if (!this.view) return;
    const action = this.view.paused ? 'resume' : 'pause';
    this.button.disabled = true;
    try {
      await postJson(`/queues/${encodeURIComponent(this.queue)}/${action}`);
      this.message.replaceChildren();
      this.onChange();
      await this.refresh();
    } catch (err) {
      this.message.replaceChildren(notice((err as Error).message, 'error'));
    } finally {
      this.button.disabled = false;
    }
  }

  private draw(view: QueueFlowView): void {
    this.view = view;
    const { limits } = view;
    this.button.textContent = view.paused ? 'Resume' : 'Pause';
    this.button.dataset.action = view.paused ? 'resume' : 'pause';
    this.button.hidden = this.readOnly;
    const state = h(
      'span',
      {
        class: `status ${view.paused ? 'status-paused' : 'status-done'}`,
        'data-flow-state': view.paused ? 'paused' : 'running',
        title: view.paused
          ? 'Supervisors claim nothing from this queue; running jobs finish; enqueues are accepted'
          : 'Supervisors claim from this queue',
      },
      view.paused ? 'paused' : 'claiming',
    );
    const facts = h(
      'ul',
      { class: 'flow-limits' },
      h(
        'li',
        { 'data-flow-running': '' },
        h('b', {}, view.running),
        limits.total !== undefined ? ` / ${limits.total} running` : ' running (no total limit)',
        limits.total !== undefined ? meter(view.running, limits.total) : null,
      ),
      limits.perKey !== undefined
        ? h(
            'li',
            { 'data-flow-per-key': '' },
            `${limits.perKey} per key`,
            limits.strategy && limits.strategy !== 'queue' ? ` (full key: ${limits.strategy})` : '',
          )
        : null,
      limits.rateLimit ? h('li', { 'data-flow-throttle': '' }, throttleText(limits.rateLimit)) : null,
      limits.keyRateLimit
        ? h('li', { 'data-flow-key-throttle': '' }, `per key: ${throttleText(limits.keyRateLimit)}`)
        : null,
      Object.entries(limits.machineRateLimits ?? {}).map(([m, r]) =>
        h('li', { 'data-flow-machine-throttle': m }, `machine ${m}: ${throttleText(r)}`),
      ),
      view.throttledUntil !== undefined
        ? h(
            'li',
            { 'data-flow-throttled': String(view.throttledUntil) },
            h('span', { class: 'status status-paused' }, 'throttled'),
            ` next start at ${time(view.throttledUntil)}`,
          )
        : null,
    );
    this.body.replaceChildren(
      h('div', { class: 'flow-head' }, h('h3', {}, 'Flow'), state, this.button),
      facts,
      keysTable(view.keys, limits.perKey) ?? '',
    );
  }
}

function meter(value: number, max: number): HTMLElement {
  const pct = Math.min(100, Math.round((value / max) * 100));
  return h(
    'span',
    {
      class: `meter${value >= max ? ' full' : ''}`,
      role: 'img',
      'aria-label': `${value} of ${max} slots used`,
    },
    h('span', { style: `width: ${pct}%` }),
  );
}

function throttleText(r: { limit: number; perMs: number; burst?: number; mode?: string }): string {
  // Windows are set in whole seconds as a rule: "per 1 s" rather than duration()'s "1.0 s".
  const per = r.perMs % 1000 === 0 && r.perMs < 60_000 ? `${r.perMs / 1000} s` : duration(r.perMs);
  const skip = r.mode === 'skip' ? ', over it: skipped' : '';
  return `throttle ${r.limit} starts per ${per}${r.burst ? ` (+${r.burst} burst)` : ''}${skip}`;
}

/** The keys with the most waiting jobs (then the most running), at most TOP_KEYS of them. */
export function topKeys(keys: readonly KeyUse[]): KeyUse[] {
  return [...keys]
    .sort((a, b) => b.waiting - a.waiting || b.running - a.running || (a.key < b.key ? -1 : 1))
    .slice(0, TOP_KEYS);
}

/** `perKey`: a key at its limit is marked full (its next job waits for one of it to stop). */
function keysTable(keys: readonly KeyUse[], perKey: number | undefined): HTMLElement | null {
  if (keys.length === 0) return null;
  const shown = topKeys(keys);
  const rest = keys.length - shown.length;
  const restWaiting = keys.reduce((n, k) => n + k.waiting, 0) - shown.reduce((n, k) => n + k.waiting, 0);
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'flow-keys', 'aria-label': 'Concurrency keys by waiting jobs' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', {}, 'key'), h('th', {}, 'running'), h('th', {}, 'waiting'), h('th', {}, '')),
      ),
      h(
        'tbody',
        {},
        shown.map((k) =>
          h(
            'tr',
            { 'data-flow-key': k.key },
            h('td', { class: 'mono wrap' }, k.key),
            h('td', { 'data-col': 'running' }, k.running),
            h('td', { 'data-col': 'waiting' }, k.waiting),
            h(
              'td',
              { 'data-col': 'full' },
              k.paused
                ? h('span', { class: 'status status-paused', 'data-key-paused': '' }, 'paused')
                : perKey !== undefined && k.running >= perKey
                  ? h(
                      'span',
                      { class: 'status status-paused', title: `${k.running} of ${perKey} slots` },
                      'full',
                    )
                  : '',
            ),
          ),
        ),
      ),
    ),
    rest > 0
      ? h('p', { class: 'muted', 'data-flow-more': '' }, `and ${rest} more keys (${restWaiting} waiting)`)
      : null,
  );
}
