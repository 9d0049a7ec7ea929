// Loads the user's jobs module for `machinist worker --jobs <module>`: every export made by
// defineJob() or definePipeline(), whether a default export (one or an array) or named exports.

import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { AnyDefinition } from '../runtime/registry.js';
import { CliError } from './CliError.js';

function isDefinition(v: unknown): v is AnyDefinition {
  const kind = (v as { kind?: unknown } | null)?.kind;
  return (
    typeof v === 'object' &&
    v !== null &&
    (kind === 'job' || kind === 'pipeline') &&
    typeof (v as { name?: unknown }).name === 'string'
  );
}

/** The definitions a module exports, each once (a default array may repeat named exports). */
export function collectDefinitions(mod: Record<string, unknown>): AnyDefinition[] {
  const found = new Set<AnyDefinition>();
  for (const exported of Object.values(mod)) {
    for (const v of Array.isArray(exported) ? exported : [exported]) if (isDefinition(v)) found.add(v);
  }
  return [...found];
}

export async function loadJobs(modulePath: string): Promise<AnyDefinition[]> {
  const file = resolve(modulePath);
  if (!existsSync(file)) throw new CliError(`--jobs module not found: ${file}`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const hint =
      e.code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ' (compile it to .js first, or run node with --import tsx)'
        : '';
    throw new CliError(`cannot load --jobs module ${modulePath}: ${e.message ?? String(err)}${hint}`);
  }
  const defs = collectDefinitions(mod);
  if (defs.length === 0) {
    throw new CliError(
      `--jobs module ${modulePath} exports no job definitions (export defineJob()/definePipeline() results, by name or as a default array)`,
    );
  }
  return defs;
}
