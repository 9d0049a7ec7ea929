// The layer rule of `npm run lint` (.dependency-cruiser.cjs) refuses what it says it refuses. Each
// case is a tiny tree of files laid out as the project is (src/<folder>/, machines/), cruised
// with the project's own config: an import the layer diagram forbids is reported under its rule,
// and the imports it allows are not. (That the project itself passes is `npm run lint`.)

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

/** The fixture: file -> its source. Each bad import is alone in its file, so a rule names it. */
const FILES: Record<string, string> = {
  'src/errors.ts': `export { MachinistError } from './errors/MachinistError.js';\n`,
  'src/errors/MachinistError.ts': `export class MachinistError extends Error {}\n`,
  'machines/job.ts': `import type { MachinistError } from '../src/errors.js';\nexport type E = MachinistError;\n`,
  'machines/demo.ts': `export const demo = 1;\n`,
  'examples/jobs.ts': `export const jobs = 1;\n`,
  'src/store/types.ts': `import type { E } from '../../machines/job.js';\nexport type Store = { e?: E };\n`,
  'src/store/redis/RedisStore.ts': `import type { Store } from '../types.js';\nexport const r: Store = {};\n`,
  'src/supervisor/Supervisor.ts': `import type { Store } from '../store/types.js';\nexport const s: Store = {};\n`,
  'src/cli/actions/worker.ts': `import { s } from '../../supervisor/Supervisor.js';\nimport { r } from '../../store/redis/RedisStore.js';\nexport const m = [s, r];\n`,
  'src/cli/main.ts': `export const run = async () => (await import('./actions/worker.js')).m;\n`,
  'src/cli/commands/eager.ts': `import { r } from '../../store/redis/RedisStore.js';\nexport const e = r;\n`,
  // Forbidden, one per file:
  'src/store/upward.ts': `import { s } from '../supervisor/Supervisor.js';\nexport const u = s;\n`,
  'src/runtime/a.ts': `import type { B } from './b.js';\nexport type A = { b?: B };\n`,
  'src/runtime/b.ts': `import type { A } from './a.js';\nexport type B = { a?: A };\n`,
  'src/cli/demo.ts': `import { demo } from '../../machines/demo.js';\nexport const d = demo;\n`,
  'src/cli/example.ts': `import { jobs } from '../../examples/jobs.js';\nexport const x = jobs;\n`,
  'src/store/memory/MemoryStore.ts': `import { r } from '../redis/RedisStore.js';\nexport const mem = r;\n`,
  'src/errors/upward.ts': `import type { Store } from '../store/types.js';\nexport type U = Store;\n`,
  'src/runtime/errorClass.ts': `import { MachinistError } from '../errors/MachinistError.js';\nexport const e = MachinistError;\n`,
  'src/supervisor/picksAStore.ts': `import { r } from '../store/redis/RedisStore.js';\nexport const p = r;\n`,
};

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

let dir: string;
let violations: Violation[];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'machinist-layers-'));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  );
  let out: string;
  try {
    out = execFileSync(
      process.execPath,
      [
        DEPCRUISE,
        'src',
        'machines',
        'examples',
        '--config',
        join(ROOT, '.dependency-cruiser.cjs'),
        '--output-type',
        'json',
      ],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (err) {
    // depcruise exits non-zero when it finds violations; its report is still on stdout.
    out = (err as { stdout: string }).stdout;
  }
  violations = (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** The rules that report an import from `from` (to `to`, when given). */
function rulesFor(from: string, to?: string): string[] {
  return violations
    .filter((v) => v.from === from && (to === undefined || v.to === to))
    .map((v) => v.rule.name)
    .sort();
}

describe('the layer rule (.dependency-cruiser.cjs)', () => {
  it('refuses a store importing the supervisor, a layer above it', () => {
    assert.deepEqual(rulesFor('src/store/upward.ts', 'src/supervisor/Supervisor.ts'), ['layer-store']);
  });

  it('refuses an import cycle made of type-only imports', () => {
    assert.ok(rulesFor('src/runtime/a.ts').includes('no-cycles'), JSON.stringify(violations));
  });

  it('refuses src/ importing a demo machine or examples/, and allows machines/job.ts', () => {
    assert.deepEqual(rulesFor('src/cli/demo.ts'), ['src-takes-only-the-lifecycle-from-machines']);
    assert.deepEqual(rulesFor('src/cli/example.ts'), ['src-takes-only-the-lifecycle-from-machines']);
    assert.deepEqual(rulesFor('src/store/types.ts'), []);
  });

  it('refuses one store importing the other, and a middle layer picking a store', () => {
    assert.deepEqual(rulesFor('src/store/memory/MemoryStore.ts'), ['stores-apart']);
    assert.deepEqual(rulesFor('src/supervisor/picksAStore.ts'), ['only-the-edges-pick-a-store']);
  });

  it('refuses src/errors/ importing a layer, and a layer reaching into src/errors/ past src/errors.ts', () => {
    assert.deepEqual(rulesFor('src/errors/upward.ts'), ['errors-is-the-bottom']);
    assert.deepEqual(rulesFor('src/runtime/errorClass.ts'), ['errors-through-errors-ts', 'layer-runtime']);
    assert.deepEqual(rulesFor('src/errors.ts'), []);
  });

  it('allows what the diagram allows: down the layers, and the edges picking a store', () => {
    for (const file of [
      'src/supervisor/Supervisor.ts',
      'src/cli/actions/worker.ts',
      'src/cli/main.ts',
      'src/store/redis/RedisStore.ts',
    ])
      assert.deepEqual(rulesFor(file), [], file);
    assert.deepEqual(rulesFor('machines/job.ts'), []);
  });

  it('refuses a CLI command definition importing a store at the top, and allows it inside the action', () => {
    assert.deepEqual(rulesFor('src/cli/commands/eager.ts'), ['cli-definitions-load-cheaply']);
    assert.deepEqual(rulesFor('src/cli/main.ts'), []);
  });
});
