// Finds the definition (XState's JSON of the machine) a job's chart is drawn from: one the
// server was given (`jobs`, every version it holds), else the registry's (supervisors publish
// each machine's latest version). A simple job (defineJob) has none: it is drawn without a chart.

import type { AnyDefinition } from '../runtime/registry.js';
import type { Store } from '../store/types.js';

/** Registry reads are cached this long: a page's live refreshes must not each read it. */
const REGISTRY_TTL_MS = 5000;

export class Definitions {
  private registry: { at: number; byKey: Map<string, unknown> } | null = null;

  constructor(
    private readonly store: Store,
    private readonly jobs: readonly AnyDefinition[] = [],
  ) {}

  async get(machine: string, version: number): Promise<unknown> {
    for (const d of this.jobs) {
      if (d.name === machine && d.version === version && d.kind === 'pipeline' && d.definitionJson)
        return d.definitionJson;
    }
    const reg = await this.readRegistry();
    return reg.get(`${machine}@${version}`) ?? null;
  }

  /** Every machine and its versions, from the registry and the server's own definitions. */
  async list(): Promise<{ name: string; versions: number[] }[]> {
    const byName = new Map<string, Set<number>>();
    for (const m of await this.store.machines()) byName.set(m.name, new Set(m.versions));
    for (const d of this.jobs) byName.set(d.name, (byName.get(d.name) ?? new Set()).add(d.version));
    return [...byName.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, versions]) => ({ name, versions: [...versions].sort((a, b) => a - b) }));
  }

  private async readRegistry(): Promise<Map<string, unknown>> {
    const now = Date.now();
    if (this.registry && now - this.registry.at < REGISTRY_TTL_MS) return this.registry.byKey;
    const byKey = new Map<string, unknown>();
    for (const m of await this.store.machines()) {
      const latest = Math.max(...m.versions);
      if (m.definition) byKey.set(`${m.name}@${latest}`, m.definition);
    }
    this.registry = { at: now, byKey };
    return byKey;
  }
}
