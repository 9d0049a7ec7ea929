// Layout checks for the dashboard's pages in a real browser: no text box overlaps another, and
// nothing sticks out of the window sideways (text inside a horizontal scroller, a wide table,
// counts as inside when the scroller is). Text is measured as its text nodes' own boxes (a Range
// per node), so a cell's padding or a parent's box never counts as overlap; only what shows
// counts: each box is cut to its clipping ancestors (a chart's viewport, a scrolled JSON block).

import type { Page } from 'playwright-core';

export interface LayoutProblems {
  /** Pairs of texts whose boxes overlap, each named by its text. */
  overlaps: string[];
  /** Texts (or scrollers) outside [0, window width]. */
  outside: string[];
  /** The document itself scrolls sideways. */
  pageScrollsSideways: boolean;
}

// Run in the page: a string, so the test's compiler never sees DOM code it has no types for.
const CHECK = `(() => {
  const vw = document.documentElement.clientWidth;
  const skip = (el) => !!el.closest('textarea, select, option, script, style, noscript');
  const scrollerOf = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return p;
    }
    return null;
  };
  // The part of the window el's content can show in: its box and its ancestors' where they clip.
  const clipOf = (el) => {
    let c = { left: -Infinity, top: -Infinity, right: Infinity, bottom: Infinity };
    for (let p = el; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = p.getBoundingClientRect();
      c = { left: Math.max(c.left, b.left), top: Math.max(c.top, b.top), right: Math.min(c.right, b.right), bottom: Math.min(c.bottom, b.bottom) };
    }
    return c;
  };
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim() || skip(el)) continue;
    // Not shown: display none, visibility hidden, or inside a closed <details>.
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const c = clipOf(el);
    for (const raw of range.getClientRects()) {
      const r = { left: Math.max(raw.left, c.left), top: Math.max(raw.top, c.top), right: Math.min(raw.right, c.right), bottom: Math.min(raw.bottom, c.bottom) };
      if (r.right - r.left > 0.5 && r.bottom - r.top > 0.5) boxes.push({ r, el, text: n.textContent.trim().slice(0, 40) });
    }
  }
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) overlaps.push(boxes[i].text + ' <> ' + boxes[j].text);
    }
  const outside = [];
  for (const b of boxes) {
    const s = scrollerOf(b.el);
    const r = s ? s.getBoundingClientRect() : b.r;
    if (r.left < -0.5 || r.right > vw + 0.5) outside.push((s ? 'scroller of ' : '') + b.text);
  }
  return {
    overlaps: [...new Set(overlaps)].slice(0, 20),
    outside: [...new Set(outside)].slice(0, 20),
    pageScrollsSideways: document.documentElement.scrollWidth > vw,
  };
})()`;

/** Measured scrolled to the top: the sticky header would cover content scrolled under it. */
export async function layoutProblems(page: Page): Promise<LayoutProblems> {
  await page.evaluate('window.scrollTo(0, 0)');
  return page.evaluate<LayoutProblems>(CHECK);
}

/** The window sizes and themes every page is checked at (issue 26). */
export const LAYOUTS = [
  { width: 1280, height: 800, colorScheme: 'light' },
  { width: 1280, height: 800, colorScheme: 'dark' },
  { width: 420, height: 800, colorScheme: 'light' },
  { width: 420, height: 800, colorScheme: 'dark' },
] as const;

// Texts under `scope` not wholly visible: outside the window sideways, or outside the box of an
// ancestor that clips or scrolls them (a wide table in a scroller shows part of itself).
const CUT = `(scope) => {
  const vw = document.documentElement.clientWidth;
  const cut = [];
  const walker = document.createTreeWalker(document.querySelector(scope) ?? document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim()) continue;
    // Not shown: display none, visibility hidden, or inside a closed <details>.
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      if (r.width <= 0.5 || r.height <= 0.5) continue;
      let bad = r.left < -0.5 || r.right > vw + 0.5;
      for (let p = el.parentElement; p && !bad; p = p.parentElement) {
        if (getComputedStyle(p).overflowX === 'visible') continue;
        const c = p.getBoundingClientRect();
        bad = r.left < c.left - 0.5 || r.right > c.right + 0.5;
      }
      if (bad) cut.push(n.textContent.trim().slice(0, 40));
    }
  }
  return [...new Set(cut)].slice(0, 20);
}`;

/** Texts under `scope` cut by the window's edge or by a clipping or scrolling ancestor. */
export async function cutTexts(page: Page, scope: string): Promise<string[]> {
  return page.evaluate<string[]>(`(${CUT})(${JSON.stringify(scope)})`);
}
