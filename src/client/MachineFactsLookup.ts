// What an enqueue must know of the machine it names (MachineFacts: newest version, default
// maxAttempts, input schema): from the client's own definitions when it was built with `jobs`,
// else from the registry that supervisors publish, read through a short cache.

import { UnknownMachineError, ValidationError } from '../errors.js';
import type { Registry, AnyDefinition } from '../runtime/registry.js';
import type { MachineInfo, Store } from '../store/types.js';
import type { MachineFacts } from './buildNewJob.js';
import type { InputSchema } from '../runtime/checkInput.js';
import { DEFAULT_MAX_ATTEMPTS } from '../runtime/backoff.js';

const REGISTRY_TTL_MS = 2000;

export class MachineFactsLookup {
  private remote: { at: number; byName: Map<string, MachineInfo> } | undefined;

  /**
   * `local`: the client's `jobs`, the only names taken when given. `schemasFrom`: definitions
   * whose input schemas check the published registry's names (a supervisor's own).
   */
  constructor(
    private readonly store: Store,
    private readonly local: Registry | undefined,
    private readonly schemasFrom: Registry | undefined,
  ) {}

  /**
   * The machine's newest version, default maxAttempts and input schema (when its definition is
   * known here); synchronous when known locally or cached.
   */
  machineInfo(machine: string): MachineFacts | Promise<MachineFacts> {
    if (typeof machine !== 'string' || machine.length === 0)
      throw new ValidationError('machine must be a non-empty string', { field: 'machine' });
    if (this.local) {
      const def = this.local.latest(machine);
      if (!def) throw new UnknownMachineError(machine, { field: 'machine' });
      return factsOf(def);
    }
    const info =
      this.remote && Date.now() - this.remote.at < REGISTRY_TTL_MS
        ? this.remote.byName.get(machine)
        : undefined;
    if (info)
      return this.withSchema(machine, {
        version: Math.max(...info.versions),
        maxAttempts: info.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        ...(info.record === 'minimal' ? { minimal: true } : {}),
      });
    return this.versionOf(machine).then((version) =>
      this.withSchema(machine, {
        version,
        maxAttempts: this.maxAttemptsOf(machine),
        ...(this.remote?.byName.get(machine)?.record === 'minimal' ? { minimal: true } : {}),
      }),
    );
  }

  /** The registry's facts, with the input schema of that version when inputSchemasFrom has it. */
  private withSchema(machine: string, facts: MachineFacts): MachineFacts {
    const def = this.schemasFrom?.get(machine, facts.version);
    return def?.input ? { ...facts, input: def.input } : facts;
  }

  private async versionOf(machine: string): Promise<number> {
    let info =
      this.remote && Date.now() - this.remote.at < REGISTRY_TTL_MS
        ? this.remote.byName.get(machine)
        : undefined;
    if (!info) {
      const all = await this.store.machines();
      this.remote = { at: Date.now(), byName: new Map(all.map((m) => [m.name, m])) };
      info = this.remote.byName.get(machine);
    }
    if (!info) throw new UnknownMachineError(machine, { field: 'machine' });
    return Math.max(...info.versions);
  }

  private maxAttemptsOf(machine: string): number {
    // Without local definitions, the registry that supervisors publish carries it (read by versionOf).
    return this.remote?.byName.get(machine)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  }
}

/** What a definition says of its jobs at enqueue: version, default maxAttempts, input schema. */
function factsOf(def: AnyDefinition): MachineFacts {
  const facts: MachineFacts = {
    version: def.version,
    maxAttempts: def.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
  };
  if (def.record === 'minimal') facts.minimal = true;
  if (def.input) facts.input = def.input as InputSchema;
  return facts;
}

/** The name a job reference stands for: the string, or a definition's name. */
export function machineName(machine: unknown): string {
  if (typeof machine === 'string') return machine;
  const name = (machine as { name?: unknown; runAttempt?: unknown } | null)?.name;
  if (typeof name === 'string' && typeof (machine as { runAttempt?: unknown }).runAttempt === 'function')
    return name;
  throw new ValidationError('machine must be a job name or a definition from defineJob/definePipeline', {
    field: 'machine',
  });
}
