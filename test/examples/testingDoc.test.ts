// docs/testing.md's example test file, exactly as written, run with node's test runner in its own
// process as a user's test would run (`machinist` and `machinist/testing` being this package's
// two exports): every test in it passes, and it imports nothing a user outside this repository
// could not import.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The first ```ts block under docs/testing.md's "## Example". */
function docExample(): string {
  const text = readFileSync(join(ROOT, 'docs/testing.md'), 'utf8');
  const m = /```ts\n([\s\S]*?)```/.exec(text.slice(text.indexOf('## Example')));
  assert.ok(m, "docs/testing.md's example was found");
  return m[1]!;
}

describe("docs/testing.md's example", () => {
  it('imports only the package, xstate and node, and its tests pass', () => {
    const code = docExample();
    const imports = [...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    const foreign = imports.filter((s) => !/^(machinist|machinist\/testing|xstate|node:.*)$/.test(s));
    assert.deepEqual(foreign, [], 'imports a user of the package can make');
    const dir = join(ROOT, 'test-artifacts');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `testing-doc-${process.pid}.test.ts`);
    writeFileSync(
      file,
      code
        .replace("from 'machinist/testing'", `from ${JSON.stringify(join(ROOT, 'src/testing/index.ts'))}`)
        .replace("from 'machinist'", `from ${JSON.stringify(join(ROOT, 'src/index.ts'))}`),
    );
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], {
        encoding: 'utf8',
        timeout: 60_000,
        // Not a subtest of this run: the child is a test run of its own.
        env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
      });
      const out = `${r.stdout}${r.stderr}`;
      assert.equal(r.status, 0, out);
      assert.match(out, /# pass 3\b/, out);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
