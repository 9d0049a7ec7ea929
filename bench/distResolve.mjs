// Module hooks for bench/fromDist.mjs: an import that resolves to src/**.ts resolves instead to
// the compiled dist/src/**.js (runs after tsx's resolver, which maps `.js` specifiers to `.ts`).

import { pathToFileURL } from 'node:url';

let src = '';
let dist = '';

export function initialize({ root }) {
  src = pathToFileURL(`${root}src/`).href;
  dist = pathToFileURL(`${root}dist/src/`).href;
}

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (!r.url.startsWith(src) || !r.url.endsWith('.ts') || r.url.endsWith('.d.ts')) return r;
  return { ...r, url: `${dist}${r.url.slice(src.length, -3)}.js`, format: 'module' };
}
