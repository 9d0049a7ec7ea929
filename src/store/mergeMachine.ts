// How a machine's registry entry merges with the one stored, for every backend: RedisStore's
// registry hash and MemoryStore's map hold the result of the same function.

import type { MachineInfo } from './types.js';

/**
 * The entry stored after registering `m` over `prev`: the versions are the union of both; the
 * other fields (hasLoad, definition, maxAttempts) come from whichever side knows the newest
 * version, so supervisors of an older deployment that refresh the registry do not undo a newer
 * one's. Fingerprints merge per version, the stored one winning (a supervisor whose definition
 * differs refuses to start: checkDefinitions.ts), unless `replaceFingerprints`; so do the
 * versions' chart models (`graphs`): a version's chart goes with its fingerprint.
 */
export function mergeMachine(
  prev: MachineInfo | undefined,
  m: MachineInfo,
  replaceFingerprints: boolean,
): MachineInfo {
  const versions = [...new Set([...(prev?.versions ?? []), ...m.versions])].sort((a, b) => a - b);
  const newer = prev && Math.max(...prev.versions) > Math.max(...m.versions) ? prev : m;
  const fingerprints = replaceFingerprints
    ? { ...prev?.fingerprints, ...m.fingerprints }
    : { ...m.fingerprints, ...prev?.fingerprints };
  const graphs = replaceFingerprints ? { ...prev?.graphs, ...m.graphs } : { ...m.graphs, ...prev?.graphs };
  const merged: MachineInfo = { ...newer, versions };
  if (Object.keys(fingerprints).length > 0) merged.fingerprints = fingerprints;
  else delete merged.fingerprints;
  if (Object.keys(graphs).length > 0) merged.graphs = graphs;
  else delete merged.graphs;
  return merged;
}
