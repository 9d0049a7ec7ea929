// The package's version for `--version`: read from the package.json above this file, which is
// two levels up from src/cli and three from dist/src/cli.

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
