// Pending timers (`after` delays, retry backoff, delayed start) with live countdowns. Due times
// are Redis's clock; the countdown runs from the server's `now` at the read plus local elapsed
// time, so a browser whose clock is off still counts down right.

import { h } from './dom.js';
import { duration, time } from './format.js';
import type { Timer } from './types.js';

export class TimersPanel {
  readonly el = h('section', { class: 'panel', 'aria-label': 'Timers' });
  private readonly list = h('ul', { class: 'tree' });
  private rows: { timer: Timer; out: HTMLElement }[] = [];
  private base = { server: 0, local: 0 };
  private readonly tick: ReturnType<typeof setInterval>;

  constructor() {
    this.el.append(h('h2', {}, 'Timers'), this.list);
    this.tick = setInterval(() => this.render(), 1000);
  }

  update(timers: Timer[], serverNow: number): void {
    this.base = { server: serverNow, local: Date.now() };
    this.rows = timers.map((timer) => ({ timer, out: h('b', { class: 'countdown' }) }));
    this.list.replaceChildren(
      ...(this.rows.length === 0
        ? [h('li', { class: 'muted' }, 'No timers pending.')]
        : this.rows.map(({ timer, out }) =>
            h(
              'li',
              { 'data-timer': timer.event },
              h('span', { class: 'muted' }, label(timer)),
              ' due ',
              time(timer.dueAt),
              ' — in ',
              out,
            ),
          )),
    );
    this.render();
  }

  private render(): void {
    const now = this.base.server + (Date.now() - this.base.local);
    for (const { timer, out } of this.rows) {
      const left = timer.dueAt - now;
      out.textContent = left > 0 ? duration(left) : 'due now';
    }
  }

  stop(): void {
    clearInterval(this.tick);
  }
}

function label(t: Timer): string {
  if (t.kind === 'after') return `after ${t.delay ?? '?'} in ${t.stateId ?? '?'}`;
  return t.kind === 'retry' ? 'retry (backoff)' : 'delayed start';
}
