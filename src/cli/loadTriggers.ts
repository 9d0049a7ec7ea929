// Loads the user's triggers module for `machinist serve --triggers <module>`: every export made by
// defineTrigger(), whether a default export (one or an array) or named exports (docs/triggers.md).

import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { TriggerDefinition } from '../triggers/defineTrigger.js';
import { CliError } from './CliError.js';

const isTrigger = (v: unknown): v is TriggerDefinition =>
  typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'trigger';

export async function loadTriggers(modulePath: string): Promise<TriggerDefinition[]> {
  const file = resolve(modulePath);
  if (!existsSync(file)) throw new CliError(`--triggers module not found: ${file}`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    // A trigger refused by defineTrigger (its message names the field) lands here too.
    throw new CliError(
      `cannot load --triggers module ${modulePath}: ${(err as Error).message ?? String(err)}`,
    );
  }
  const found = new Set<TriggerDefinition>();
  for (const exported of Object.values(mod))
    for (const v of Array.isArray(exported) ? exported : [exported]) if (isTrigger(v)) found.add(v);
  if (found.size === 0)
    throw new CliError(
      `--triggers module ${modulePath} exports no triggers (export defineTrigger() results, by name or as a default array)`,
    );
  return [...found];
}
