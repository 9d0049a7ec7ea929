// Operator actions on a job: send one of the events its state accepts now, cancel it with its
// subtree, retry it from the dead letters. Shown only when the server's dashboard is not
// read-only; every call goes to the API with the same bearer token as any other client, so the
// API's auth decides, not the page.

import { postJson } from './api.js';
import { h, notice } from './dom.js';
import type { JobPageView } from './types.js';

const FINISHED = new Set(['done', 'failed', 'cancelled']);

export class ActionsPanel {
  readonly el = h('section', { class: 'panel', 'aria-label': 'What can happen next' });
  private readonly events = h('ul', {
    class: 'next-events',
    'aria-label': 'Events the current state accepts',
  });
  private readonly select = h('select', { name: 'type', 'aria-label': 'Event type' });
  private readonly payload = h('textarea', {
    name: 'payload',
    rows: 2,
    cols: 28,
    'aria-label': 'Event fields (JSON object)',
    placeholder: '{"by": "me"}',
  });
  private readonly sendForm = h('form', { 'aria-label': 'Send an event' });
  private readonly buttons = h('div', { class: 'actions' });
  private readonly message = h('div');
  /** What the list shows (events, and whether the job finished); null before the first update. */
  private shownEvents: string | null = null;
  // Made once: a live update must not reset a cancel half-confirmed.
  private readonly cancel = this.cancelButton();
  private readonly retry = this.retryButton();

  constructor(private readonly jobId: string) {
    this.buttons.append(this.cancel, this.retry);
    this.sendForm.append(this.select, this.payload, h('button', { type: 'submit' }, 'Send event'));
    this.sendForm.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.send();
    });
    this.el.append(
      h('h2', {}, 'What can happen next'),
      this.events,
      this.sendForm,
      this.buttons,
      this.message,
    );
  }

  update(view: JobPageView): void {
    const finished = FINISHED.has(view.job.status);
    const key = `${finished}\n${view.next.join('\n')}`;
    if (key !== this.shownEvents) {
      this.shownEvents = key;
      this.events.replaceChildren(
        ...(view.next.length
          ? view.next.map((t) => h('li', { 'data-next-event': t }, h('code', {}, t)))
          : [
              h(
                'li',
                { class: 'muted' },
                finished ? 'Nothing: the job has finished.' : 'No event is accepted in this state.',
              ),
            ]),
      );
      this.select.replaceChildren(...view.next.map((t) => h('option', { value: t }, t)));
    }
    this.sendForm.hidden = view.readOnly || view.next.length === 0 || finished;
    this.buttons.hidden = view.readOnly;
    this.cancel.hidden = finished;
    this.retry.hidden = view.job.status !== 'failed';
  }

  /** Two steps rather than window.confirm: a dialog the page cannot style or test easily. */
  private cancelButton(): HTMLButtonElement {
    const b = h('button', { type: 'button', class: 'danger', 'data-action': 'cancel' }, 'Cancel job');
    b.addEventListener('click', () => {
      if (b.dataset.armed !== 'true') {
        b.dataset.armed = 'true';
        b.textContent = 'Confirm: cancel this job and its subtree';
        return;
      }
      b.disabled = true;
      void this.run(() => postJson(`/jobs/${encodeURIComponent(this.jobId)}/cancel`), 'Cancel requested.');
    });
    return b;
  }

  private retryButton(): HTMLButtonElement {
    return h(
      'button',
      {
        type: 'button',
        'data-action': 'retry',
        onclick: () =>
          void this.run(
            () => postJson(`/dead-letters/${encodeURIComponent(this.jobId)}/retry`),
            'Requeued from the dead letters.',
          ),
      },
      'Retry from dead letters',
    );
  }

  private async send(): Promise<void> {
    let fields: Record<string, unknown> = {};
    const text = this.payload.value.trim();
    if (text) {
      try {
        const parsed = JSON.parse(text) as unknown;
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          throw new Error('not an object');
        fields = parsed as Record<string, unknown>;
      } catch {
        this.message.replaceChildren(
          notice('The event fields must be a JSON object, e.g. {"by": "me"}.', 'error'),
        );
        return;
      }
    }
    const type = this.select.value;
    await this.run(
      () => postJson(`/jobs/${encodeURIComponent(this.jobId)}/events`, { event: { ...fields, type } }),
      `Sent ${type}.`,
    );
  }

  private async run(call: () => Promise<unknown>, done: string): Promise<void> {
    try {
      await call();
      this.message.replaceChildren(notice(done));
    } catch (err) {
      this.message.replaceChildren(notice((err as Error).message, 'error'));
    }
  }
}
