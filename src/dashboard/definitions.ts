// Finds the chart model of machine@version: from a definition the server was given (`jobs`,
// every version it holds), else, for a machine the registry lists without a definition (a
// simple job), the shared lifecycle every simple job runs in. A pipeline known only from the
// registry has no chart here: its registry entry is XState's JSON, and the chart module builds
// its model from the machine itself.

import { jobMachine } from '../../machines/job.js';
import { graphOfMachine, machineGraph } from '../chart/machineGraph.js';
import type { MachineGraph } from '../chart/chartModel.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { MachineInfo, Store } from '../store/types.js';

/** Registry reads are cached this long: a page's live refreshes must not each read it. */
const REGISTRY_TTL_MS = 5000;

export interface ChartSource {
  graph: MachineGraph;
  /** The definition itself, when the server has it (XState then answers "what next"). */
  definition?: AnyDefinition;
}

export class Definitions {
  private registry: { at: number; machines: MachineInfo[] } | null = null;
  private readonly lifecycles = new Map<string, MachineGraph>();

  constructor(
    private readonly store: Store,
    private readonly jobs: readonly AnyDefinition[] = [],
  ) {}

  async get(machine: string, version: number): Promise<ChartSource | null> {
    const local = this.jobs.find((d) => d.name === machine && d.version === version);
    if (local) return { graph: machineGraph(local), definition: local };
    const info = (await this.readRegistry()).find((m) => m.name === machine);
    if (!info || !info.versions.includes(version) || info.definition !== undefined) return null;
    const key = `${machine}@${version}`;
    let graph = this.lifecycles.get(key);
    if (!graph) this.lifecycles.set(key, (graph = graphOfMachine(jobMachine, machine, version, 'job')));
    return { graph };
  }

  /** Every machine and its versions, from the registry and the server's own definitions. */
  async list(): Promise<{ name: string; versions: number[] }[]> {
    const byName = new Map<string, Set<number>>();
    for (const m of await this.readRegistry()) byName.set(m.name, new Set(m.versions));
    for (const d of this.jobs) byName.set(d.name, (byName.get(d.name) ?? new Set()).add(d.version));
    return [...byName.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, versions]) => ({ name, versions: [...versions].sort((a, b) => a - b) }));
  }

  private async readRegistry(): Promise<MachineInfo[]> {
    const now = Date.now();
    if (this.registry && now - this.registry.at < REGISTRY_TTL_MS) return this.registry.machines;
    const machines = await this.store.machines();
    this.registry = { at: now, machines };
    return machines;
  }
}
