// Finds the chart model of machine@version (src/chart/chartSource.ts: a definition the server
// was given, else the chart model supervisors publish in the registry, else, for a simple job,
// the shared lifecycle), and keeps the server's definition beside it when there is one (XState
// then answers "what can happen next", guards included).

import { chartFor } from '../chart/chartSource.js';
import type { MachineGraph } from '../store/chartModel.js';
import { MachinistError } from '../errors.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { MachineInfo, Registry } from '../store/types.js';
import { CODE } from '../errorCodes.js';

/** Registry reads are cached this long: a page's live refreshes must not each read it. */
const REGISTRY_TTL_MS = 5000;

export interface ChartSource {
  graph: MachineGraph;
  /** The definition itself, when the server has it. */
  definition?: AnyDefinition;
}

export class Definitions {
  private registry: { at: number; machines: MachineInfo[] } | null = null;

  constructor(
    private readonly store: Registry,
    private readonly jobs: readonly AnyDefinition[] = [],
  ) {}

  /** The chart of machine@version, or null when there is none to draw (unknown, or no chart published). */
  async get(machine: string, version: number): Promise<ChartSource | null> {
    const definition = this.jobs.find((d) => d.name === machine && d.version === version);
    try {
      const graph = chartFor(machine, version, await this.readRegistry(), this.jobs);
      return definition ? { graph, definition } : { graph };
    } catch (err) {
      if (err instanceof MachinistError && (err.code === CODE.UNKNOWN_MACHINE || err.code === CODE.NO_CHART))
        return null;
      throw err;
    }
  }

  /**
   * Every machine and its versions, from the registry and the server's own definitions, with
   * the kind of its newest chart (`job`: a simple job, drawn as the shared lifecycle; null: no
   * chart to draw), so the machines page draws the lifecycle once for all simple jobs.
   */
  async list(): Promise<{ name: string; versions: number[]; kind: MachineGraph['kind'] | null }[]> {
    const byName = new Map<string, Set<number>>();
    for (const m of await this.readRegistry()) byName.set(m.name, new Set(m.versions));
    for (const d of this.jobs) byName.set(d.name, (byName.get(d.name) ?? new Set()).add(d.version));
    const sorted = [...byName.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, versions]) => ({ name, versions: [...versions].sort((a, b) => a - b) }));
    return Promise.all(
      sorted.map(async (m) => ({
        ...m,
        kind: (await this.get(m.name, m.versions[m.versions.length - 1]!))?.graph.kind ?? null,
      })),
    );
  }

  private async readRegistry(): Promise<MachineInfo[]> {
    const now = Date.now();
    if (this.registry && now - this.registry.at < REGISTRY_TTL_MS) return this.registry.machines;
    const machines = await this.store.machines();
    this.registry = { at: now, machines };
    return machines;
  }
}
