// The command a user types to run this same CLI again, for the lines that tell them what to run
// next (`machinist dev` prints how to reach its jobs). From a checkout, `npm start` runs the
// TypeScript source (tsx src/cli/main.ts): the built `machinist` bin may be missing or older,
// so the line names the source the same way. Installed, it is the `machinist` bin.

import { relative, sep } from 'node:path';

export function cliLine(
  argv1: string = process.argv[1] ?? '',
  cwd: string = process.env.INIT_CWD ?? process.cwd(),
): string {
  if (!/\.ts$/.test(argv1)) return 'npx machinist';
  // npm runs scripts in the package's directory; INIT_CWD is where the user typed `npm start`.
  const rel = relative(cwd, argv1).split(sep).join('/');
  return `npx tsx ${rel.includes(' ') ? JSON.stringify(rel) : rel}`;
}
