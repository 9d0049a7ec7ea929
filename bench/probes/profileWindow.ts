// A CPU profile of one window of a probe's own process (the probes' PROFILE argument): started
// when asked, written as a .cpuprofile when the window ends (bench/profile.ts reads it, as does
// Chrome's DevTools).

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** Starts profiling this process when `path` is given; the function returned ends the window and writes it there. */
export async function profileWindow(path: string | undefined): Promise<() => Promise<void>> {
  if (!path) return async () => {};
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(path, JSON.stringify(profile));
    session.disconnect();
  };
}
