// `node --import tsx --import ./bench/fromDist.mjs <file>`: the bench runs Machinist as a user
// runs it, from its compiled JavaScript (dist/, `npm run build`), not from src/ through tsx.
// tsx compiles with esbuild's keepNames, which wraps every function it creates in a `__name`
// call (Object.defineProperty per closure): that cost is tsx's, not Machinist's, and BullMQ,
// beside it in the same run, runs compiled. The bench's own files (bench/*.ts) still run
// through tsx; every import of src/**.ts they make, directly or not, is answered with the
// matching dist/src/**.js (distResolve.mjs), so one copy of Machinist is loaded, never both.
//
// BENCH_SOURCE=src runs src/ through tsx instead. A dist older than src/ is refused, naming the
// file, rather than measuring code that is not the code under test.

import { register } from 'node:module';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The first file of src/ (a .ts or .lua) whose compiled copy in dist/src is missing or older. */
function staleSource(dir = join(ROOT, 'src')) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const stale = staleSource(path);
      if (stale) return stale;
      continue;
    }
    const out = name.endsWith('.d.ts')
      ? undefined
      : name.endsWith('.ts')
        ? path.replace(/\.ts$/, '.js')
        : name.endsWith('.lua')
          ? path
          : undefined;
    if (!out) continue;
    const built = join(ROOT, 'dist', out.slice(ROOT.length));
    let builtAt = 0;
    try {
      builtAt = statSync(built).mtimeMs;
    } catch {
      return path;
    }
    if (builtAt < statSync(path).mtimeMs) return path;
  }
  return undefined;
}

if (process.env.BENCH_SOURCE !== 'src') {
  const stale = staleSource();
  if (stale) {
    console.error(
      `bench: dist/ is older than ${stale.slice(ROOT.length)}: run \`npm run build\` first ` +
        '(npm run bench does), or set BENCH_SOURCE=src to run src/ through tsx',
    );
    process.exit(2);
  }
  register('./distResolve.mjs', import.meta.url, { data: { root: ROOT } });
}
