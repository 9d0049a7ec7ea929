// The definitions a supervisor or client knows, by name and version.

import { DefinitionError } from '../errors.js';
import type { JobDefinition } from './defineJob.js';
import type { MachineInfo } from '../store/types.js';
import type { AttemptRunner } from './AttemptHost.js';
import type { MachineGraph } from '../store/chartModel.js';
import type { InputSchema } from './checkInput.js';
import { definitionFlow, type DefinitionLimits } from './definitionLimits.js';
import type { QueueFlowChange } from '../store/types.js';

/** Anything `Supervisor({ jobs })` accepts: `defineJob` and (from the pipelines issue) `definePipeline`. */
export type AnyDefinition = JobDefinition<any, any, any> | PipelineLike;

/** Structural view of a pipeline definition, so the registry need not import the runtime. */
export interface PipelineLike {
  readonly kind: 'pipeline';
  readonly name: string;
  readonly version: number;
  readonly timeoutMs: number;
  readonly retry?: { maxAttempts?: number };
  /** The input schema checked at enqueue (definePipeline's `input`). */
  readonly input?: InputSchema;
  readonly stallTimeoutMs?: number;
  readonly record?: 'full' | 'minimal';
  /** The limits of its queue, as declared (definitionLimits.ts). */
  readonly limits?: DefinitionLimits;
  readonly definitionJson?: unknown;
  readonly fingerprint?: string;
  /** Its chart model (definePipeline's, drawn by src/pipeline/machineGraph.ts). */
  chart?(): MachineGraph;
  /** Only whether there is one matters here (a newer version may take an older job). */
  readonly migrate?: unknown;
  readonly runAttempt: AttemptRunner;
  /** Run once by Supervisor.start(): throws when no job of this definition could run here. */
  readonly preflight?: () => void;
}

/** A pipeline's chart model for the registry; none (rather than a failed start) if it cannot be drawn. */
function chartOf(def: PipelineLike): MachineGraph | undefined {
  if (!(def as { machine?: unknown }).machine || !def.chart) return undefined;
  try {
    return def.chart();
  } catch {
    return undefined;
  }
}

export class Registry {
  private readonly byName = new Map<string, Map<number, AnyDefinition>>();

  constructor(defs: readonly AnyDefinition[] = []) {
    for (const d of defs) this.add(d);
  }

  add(def: AnyDefinition): void {
    if (
      !def ||
      (def.kind !== 'job' && def.kind !== 'pipeline') ||
      typeof (def as { runAttempt?: unknown }).runAttempt !== 'function'
    ) {
      throw new DefinitionError('jobs: each entry must come from defineJob() or definePipeline()', {
        field: 'jobs',
      });
    }
    let versions = this.byName.get(def.name);
    if (!versions) this.byName.set(def.name, (versions = new Map()));
    if (versions.has(def.version))
      throw new DefinitionError(`jobs: '${def.name}' version ${def.version} is listed twice`, {
        machine: def.name,
        field: 'jobs',
      });
    versions.set(def.version, def);
  }

  /** The exact version, if registered. */
  get(name: string, version: number): AnyDefinition | undefined {
    return this.byName.get(name)?.get(version);
  }

  /** The highest registered version of a name. */
  latest(name: string): AnyDefinition | undefined {
    const versions = this.byName.get(name);
    if (!versions) return undefined;
    let best: AnyDefinition | undefined;
    for (const d of versions.values()) if (!best || d.version > best.version) best = d;
    return best;
  }

  /**
   * Runs every definition's preflight check (a pipeline's: the installed XState is one it can
   * run on); throws the first refusal.
   */
  preflight(): void {
    for (const versions of this.byName.values())
      for (const d of versions.values()) if (d.kind === 'pipeline') d.preflight?.();
  }

  /**
   * The queue limits the latest version of each machine declares, as the change a supervisor
   * writes to its queues; undefined when none declares any. Throws DefinitionError when two
   * declare different limits (definitionLimits.ts).
   */
  queueLimits(): QueueFlowChange | undefined {
    const latest = [...this.byName.keys()].map((name) => this.latest(name)!);
    return definitionFlow(latest);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Names whose first active state is `loading`. */
  loadMachines(): string[] {
    return [...this.byName.entries()]
      .filter(([, vs]) => [...vs.values()].some((d) => d.kind === 'job' && d.load))
      .map(([n]) => n);
  }

  info(): MachineInfo[] {
    return [...this.byName.entries()].map(([name, vs]) => {
      const latest = this.latest(name)!;
      const fingerprints: Record<string, string> = {};
      const graphs: Record<string, MachineGraph> = {};
      for (const [v, d] of vs) {
        if (d.kind !== 'pipeline') continue;
        if (d.fingerprint) fingerprints[v] = d.fingerprint;
        const graph = chartOf(d);
        if (graph) graphs[v] = graph;
      }
      return {
        name,
        versions: [...vs.keys()].sort((a, b) => a - b),
        hasLoad: latest.kind === 'job' && Boolean(latest.load),
        definition: latest.kind === 'pipeline' ? latest.definitionJson : undefined,
        maxAttempts: latest.retry?.maxAttempts,
        ...(latest.record === 'minimal' ? { record: latest.record } : {}),
        ...(latest.input ? { inputSchema: true } : {}),
        ...(Object.keys(fingerprints).length > 0 ? { fingerprints } : {}),
        ...(Object.keys(graphs).length > 0 ? { graphs } : {}),
      };
    });
  }
}
