// Where a process without a machine's code gets its chart: the registry that supervisors
// publish in Redis (MachineInfo.graphs, one chart model per pipeline version). A simple job
// needs none there: every one of them runs the shared lifecycle (machines/job.ts).

import { jobMachine } from '../../machines/job.js';
import { MachinistError, UnknownMachineError } from '../errors.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { MachineInfo } from '../store/types.js';
import type { MachineGraph } from '../store/chartModel.js';
import { graphOfMachine, machineGraph } from '../pipeline/machineGraph.js';
import { CODE } from '../errorCodes.js';

/** A machine reference as users write it: `name` (its newest version) or `name@version`. */
export function parseMachineRef(ref: string): { name: string; version?: number } {
  const at = ref.lastIndexOf('@');
  if (at <= 0) return { name: ref };
  const v = ref.slice(at + 1);
  if (!/^[1-9]\d*$/.test(v))
    throw new MachinistError(
      CODE.INVALID_INPUT,
      `'${ref}': the version after '@' must be a whole number >= 1`,
      {
        field: 'machine',
      },
    );
  return { name: ref.slice(0, at), version: Number(v) };
}

/**
 * The chart of `name@version` (newest version when none is given): from `local` definitions
 * when one matches (this process has the code), else from the registry's `machines`.
 * Throws UNKNOWN_MACHINE for a name or version nobody registered, NO_CHART for a pipeline
 * registered by a supervisor that published no chart (a release before charts).
 */
export function chartFor(
  name: string,
  version: number | undefined,
  machines: readonly MachineInfo[],
  local: readonly AnyDefinition[] = [],
): MachineGraph {
  const mine = local.filter((d) => d.name === name);
  const def =
    version === undefined
      ? mine.reduce<AnyDefinition | undefined>((a, d) => (!a || d.version > a.version ? d : a), undefined)
      : mine.find((d) => d.version === version);
  if (def) return machineGraph(def);
  const info = machines.find((m) => m.name === name);
  if (!info) throw new UnknownMachineError(name, { field: 'machine' });
  const v = version ?? Math.max(...info.versions);
  if (!info.versions.includes(v))
    throw new MachinistError(
      CODE.UNKNOWN_MACHINE,
      `machine '${name}' has no version ${v} (registered: ${info.versions.join(', ')})`,
      { machine: name, field: 'version' },
    );
  const graph = info.graphs?.[String(v)];
  if (graph) return graph;
  const isPipeline = info.definition !== undefined || info.fingerprints?.[String(v)] !== undefined;
  if (!isPipeline) return graphOfMachine(jobMachine, name, v, 'job');
  throw new MachinistError(
    CODE.NO_CHART,
    `machine '${name}@${v}' was registered by a worker that publishes no chart; give its definitions (--jobs <module>)`,
    { machine: name },
  );
}
