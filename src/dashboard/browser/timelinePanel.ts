// The audit log as a timeline, each state's entry with how long the job stayed there, and a
// scrubber: choosing an entry shows the chart (and context, when known) as they were after it.

import { h } from './dom.js';
import { duration, stateText, time } from './format.js';
import type { AuditEntry } from './types.js';

export class TimelinePanel {
  readonly el = h('section', { class: 'panel', 'aria-label': 'Audit log' });
  private readonly range = h('input', {
    type: 'range',
    min: 0,
    max: 0,
    value: 0,
    'aria-label': 'Scrub the audit log',
  });
  private readonly where = h('span', { class: 'muted mono' });
  private readonly list = h('ol', { class: 'timeline' });
  private log: AuditEntry[] = [];
  /** The entry shown, or null when following the present. */
  selected: number | null = null;

  constructor(private readonly onSelect: (at: number | null) => void) {
    const live = h('button', { type: 'button', class: 'ghost', onclick: () => this.select(null) }, 'Now');
    this.range.addEventListener('input', () => {
      const i = Number(this.range.value);
      this.select(i >= this.log.length - 1 ? null : i);
    });
    this.el.append(
      h('h2', {}, 'Audit log'),
      h('div', { class: 'scrubber' }, this.range, live, this.where),
      this.list,
    );
  }

  update(log: AuditEntry[], end: number): void {
    this.log = log;
    this.range.max = String(Math.max(0, log.length - 1));
    const durations = stateDurations(log, end);
    this.list.replaceChildren(
      ...log.map((e, i) =>
        h(
          'li',
          {
            'data-entry': i,
            tabindex: 0,
            onclick: () => this.select(i === log.length - 1 ? null : i),
            onkeydown: (ev) => {
              if ((ev as KeyboardEvent).key === 'Enter') this.select(i === log.length - 1 ? null : i);
            },
          },
          h('span', { class: 'mono muted' }, time(e.at)),
          h('span', {}, h('b', {}, e.type), ' ', describe(e)),
          h('span', { class: 'muted' }, durations.has(i) ? duration(durations.get(i)!) : ''),
        ),
      ),
    );
    this.paint();
  }

  select(at: number | null): void {
    this.selected = at;
    this.paint();
    this.onSelect(at);
  }

  private paint(): void {
    const cur = this.selected ?? this.log.length - 1;
    this.range.value = String(cur);
    this.where.textContent = this.selected === null ? 'now' : `after entry ${cur + 1} of ${this.log.length}`;
    this.list.querySelectorAll('li').forEach((li, i) => {
      li.classList.toggle('current', i === cur);
      li.classList.toggle('future', i > cur);
      if (i === cur) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
    });
  }
}

function describe(e: AuditEntry): string {
  const rest: string[] = [];
  if (e.state !== undefined) rest.push(stateText(e.state));
  if (typeof e.event === 'string') rest.push(e.event);
  if (typeof e.reason === 'string') rest.push(e.reason);
  const err = e.error as { message?: string } | undefined;
  if (err?.message) rest.push(err.message);
  return rest.join(' · ');
}

/**
 * How long each `state` entry lasted: until the next `state` entry, or until the job's end
 * (`end`: its finish time, or now) for the last one.
 */
export function stateDurations(log: AuditEntry[], end: number): Map<number, number> {
  const out = new Map<number, number>();
  let open: number | null = null;
  log.forEach((e, i) => {
    if (e.type !== 'state') return;
    if (open !== null) out.set(open, e.at - log[open]!.at);
    open = i;
  });
  if (open !== null) out.set(open, end - log[open]!.at);
  return out;
}
