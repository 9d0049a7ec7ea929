// A version diff's word on a state of the drawn chart: "added", "removed", "was packing" on the
// newer chart's renamed state, "→ picking" on the older's. Colour and dashes alone say that
// something changed, not what a renamed state was called: the tag says it on the chart itself.
// It sits on the top edge of the state's box (the name is below it, the dwell line at the
// bottom), where the fewest arrows come in, shortened with … to stay within the box.

const NS = 'http://www.w3.org/2000/svg';
/** The tag's height and its text's padding and inset from the box's corner, in chart units. */
const H = 14;
const PAD = 4;
const INSET = 8;

const num = (el: Element, name: string) => Number(el.getAttribute(name) ?? 0);

/** The x of each arrow that ends on the top edge of the box at `top` (the last point of its path). */
function arrowsIn(g: SVGGElement, top: number): number[] {
  const svg = g.ownerSVGElement;
  const id = g.dataset.stateId ?? '';
  const xs: number[] = [];
  for (const path of svg?.querySelectorAll<SVGPathElement>(`[data-target="${CSS.escape(id)}"] path`) ?? []) {
    const m = /(-?[\d.]+),(-?[\d.]+)\s*$/.exec(path.getAttribute('d') ?? '');
    if (m && Math.abs(Number(m[2]) - top) < 4) xs.push(Number(m[1]));
  }
  return xs;
}

/** Sets the diff's tag on state `g` (replacing one set before). */
export function diffTag(g: SVGGElement, text: string): void {
  g.querySelector(':scope > .mc-diff-tag')?.remove();
  const box = g.querySelector<SVGRectElement>(':scope > rect.mc-box');
  if (!box) return;
  const [x, y, w] = [num(box, 'x'), num(box, 'y'), num(box, 'width')];
  const tag = document.createElementNS(NS, 'g');
  tag.setAttribute('class', 'mc-diff-tag');
  tag.setAttribute('aria-hidden', 'true');
  const bg = document.createElementNS(NS, 'rect');
  const label = document.createElementNS(NS, 'text');
  label.textContent = text;
  tag.append(bg, label);
  g.append(tag);
  // Shortened until it fits the box (0 when the chart is not rendered: left as it is).
  const room = w - 2 * INSET - 2 * PAD;
  for (let n = text.length - 1; n > 0 && label.getComputedTextLength() > room; n--)
    label.textContent = `${text.slice(0, n)}…`;
  const width = label.getComputedTextLength() + 2 * PAD;
  // Where along the top edge: the place crossed by the fewest arrows, the right corner first,
  // then the left, then beside each arrow (within 4 units of the box's corners).
  const arrows = arrowsIn(g, y);
  const lo = x + 4;
  const hi = Math.max(lo, x + w - 4 - width);
  const places = [x + w - INSET - width, x + INSET, ...arrows.flatMap((ax) => [ax + 3, ax - 3 - width])].map(
    (p) => Math.min(hi, Math.max(lo, p)),
  );
  const crossed = (p: number) => arrows.filter((ax) => ax > p + 1 && ax < p + width - 1).length;
  const left = places.reduce((best, p) => (crossed(p) < crossed(best) ? p : best));
  const attrs = (el: Element, a: Record<string, number>) => {
    for (const [k, v] of Object.entries(a)) el.setAttribute(k, String(Math.round(v * 10) / 10));
  };
  attrs(bg, { x: left, y: y - H / 2, width, height: H, rx: 3 });
  attrs(label, { x: left + PAD, y: y + 3.5 });
}
