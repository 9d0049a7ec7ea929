// The XState machines a job's states invoke (GraphInvoke.machine), each drawn as its own chart
// on the job page: where it is invoked, and the states the running child is in now, read from the
// job's snapshot (`w.children[<invoke id>].snapshot.value`, XState's persisted child).

import type { GraphInvoke, MachineGraph } from '../store/chartModel.js';
import { stateValueIds } from '../chart/stateValueIds.js';
import type { JobRecord } from '../store/types.js';

export interface InvokedMachine {
  /** `<state id>:<invoke id>`: names the chart (see invokedGraph). */
  key: string;
  state: string;
  invoke: string;
  src: string;
  /** Its active states now (the root left out); null when no such child runs. */
  active: string[] | null;
}

/** Every invoke of a machine, depth first, with the state that holds it. */
function machineInvokes(
  graph: MachineGraph,
): { state: string; inv: GraphInvoke & { machine: MachineGraph } }[] {
  const out: { state: string; inv: GraphInvoke & { machine: MachineGraph } }[] = [];
  for (const n of graph.nodes)
    for (const inv of n.invokes)
      if (inv.machine) out.push({ state: n.id, inv: { ...inv, machine: inv.machine } });
  return out;
}

/** The chart of the machine `key` (`<state id>:<invoke id>`) invokes, or null. */
export function invokedGraph(graph: MachineGraph, key: string): MachineGraph | null {
  return machineInvokes(graph).find(({ state, inv }) => `${state}:${inv.id}` === key)?.inv.machine ?? null;
}

export function invokedMachines(graph: MachineGraph, job: JobRecord, running: boolean): InvokedMachine[] {
  const children =
    (
      job.snapshot as {
        w?: { children?: Record<string, { snapshot?: { value?: unknown } } | undefined> };
      } | null
    )?.w?.children ?? {};
  return machineInvokes(graph).map(({ state, inv }) => {
    const value = running ? children[inv.id]?.snapshot?.value : undefined;
    return {
      key: `${state}:${inv.id}`,
      state,
      invoke: inv.id,
      src: inv.src,
      active:
        value === undefined
          ? null
          : stateValueIds(inv.machine, value).filter((id) => id !== inv.machine.root),
    };
  });
}
