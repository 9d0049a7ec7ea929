// The package's version (`--version`, a supervisor's facts in the fleet: roles/Fleet.ts): read
// from the nearest package.json named machinist above this file (src/runtime, or dist/src/runtime).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)), i = 0; i < 5; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'machinist' && pkg.version) return pkg.version;
  }
  return 'unknown';
}
