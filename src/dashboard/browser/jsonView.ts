// A collapsible JSON block (details/summary: keyboard and screen-reader friendly for free).

import { h } from './dom.js';

export function jsonView(title: string, value: unknown, open = false): HTMLDetailsElement {
  const text = value === undefined ? 'undefined' : JSON.stringify(value, null, 2);
  const size = text.length > 120 ? ` (${text.length.toLocaleString()} chars)` : '';
  return h(
    'details',
    { class: 'json', open, 'data-json': title },
    h('summary', {}, `${title}${size}`),
    h('pre', {}, text),
  );
}
