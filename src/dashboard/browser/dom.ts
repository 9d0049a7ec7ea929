// Building DOM nodes: text always goes in as text (never parsed as HTML), so data from jobs
// (inputs, errors, event names) cannot inject markup.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function statusBadge(status: string): HTMLSpanElement {
  return h('span', { class: `status status-${status}` }, status);
}

export function notice(text: string, kind: 'info' | 'error' = 'info'): HTMLDivElement {
  return h(
    'div',
    { class: `notice ${kind === 'error' ? 'error' : ''}`, role: kind === 'error' ? 'alert' : 'status' },
    text,
  );
}
