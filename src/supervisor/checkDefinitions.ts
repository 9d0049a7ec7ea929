// THE DEFINITION GUARD: a pipeline's jobs were stored by the definition registered for their
// name and version; a supervisor whose definition of that name@version differs MUST NOT run
// them unless told to. Registers first (a fingerprint already there is kept), then reads the
// registry back, so of two deployments starting at once the one that lost the write refuses.

import type { Logger } from 'pino';
import type { MachineInfo, Registry } from '../store/types.js';
import { MachineChangedError } from '../errors.js';

export async function checkDefinitions(
  store: Registry,
  mine: MachineInfo[],
  acceptChanged: boolean | readonly string[],
  log: Logger,
): Promise<void> {
  if (!mine.some((m) => m.fingerprints)) return;
  await store.registerMachines(mine);
  const stored = new Map((await store.machines()).map((m) => [m.name, m]));
  const accepted = (name: string, version: string) =>
    acceptChanged === true ||
    (Array.isArray(acceptChanged) &&
      (acceptChanged.includes(name) || acceptChanged.includes(`${name}@${version}`)));
  let replace = false;
  for (const m of mine) {
    for (const [version, fingerprint] of Object.entries(m.fingerprints ?? {})) {
      const registered = stored.get(m.name)?.fingerprints?.[version];
      if (registered === undefined || registered === fingerprint) continue;
      if (!accepted(m.name, version)) {
        const unfinished = await store.countUnfinished(m.name, Number(version));
        throw new MachineChangedError(m.name, Number(version), unfinished);
      }
      log.warn(
        { machine: m.name, version: Number(version) },
        'machine definition differs from the registered one for this version; accepted (acceptChangedMachines)',
      );
      replace = true;
    }
  }
  if (replace) await store.registerMachines(mine, { replaceFingerprints: true });
}
