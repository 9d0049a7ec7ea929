// The dashboard's browser files, served from the package itself (offline: no CDN, no fonts).
// Built (`npm run build`): tsc compiles browser/*.ts beside this module's compiled file, and the
// build copies static/ there too, so an installed package serves plain files. Run from source
// (tsx, the tests): browser/*.js does not exist, so each .ts file is transpiled on first request
// with TypeScript's transpileModule (a devDependency, present wherever the source runs) and kept
// until the file changes. Type checking stays with `npm run typecheck`; transpiling one file
// takes milliseconds, so a fresh clone needs no build step before `npm test`.

import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const BROWSER_DIR = join(HERE, 'browser');
const STATIC_DIR = join(HERE, 'static');

/** Asset names are one path segment: no `..`, no slashes, so a request can only name a file here. */
const NAME = /^[A-Za-z][A-Za-z0-9_-]*\.(js|css|svg)$/;

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

export interface Asset {
  body: string;
  contentType: string;
}

const transpiled = new Map<string, { mtimeMs: number; body: string }>();

async function mtime(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return null;
  }
}

async function transpile(tsPath: string, mtimeMs: number): Promise<string> {
  const hit = transpiled.get(tsPath);
  if (hit && hit.mtimeMs === mtimeMs) return hit.body;
  // Loaded only here: an installed package serves the compiled files and never needs it.
  const ts = (await import('typescript')).default;
  const out = ts.transpileModule(await readFile(tsPath, 'utf8'), {
    fileName: tsPath,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
    },
  });
  transpiled.set(tsPath, { mtimeMs, body: out.outputText });
  return out.outputText;
}

/** The named asset, or null when there is none (the caller answers 404). */
export async function readAsset(name: string): Promise<Asset | null> {
  if (!NAME.test(name)) return null;
  const ext = name.slice(name.lastIndexOf('.') + 1);
  const contentType = TYPES[ext]!;
  if (ext === 'js') {
    const js = join(BROWSER_DIR, name);
    if ((await mtime(js)) !== null) return { body: await readFile(js, 'utf8'), contentType };
    const ts = js.slice(0, -3) + '.ts';
    const m = await mtime(ts);
    return m === null ? null : { body: await transpile(ts, m), contentType };
  }
  const file = join(STATIC_DIR, name);
  if ((await mtime(file)) === null) return null;
  return { body: await readFile(file, 'utf8'), contentType };
}
