// Machines: the ones this server was given (`--jobs`) and the ones workers published in the
// registry, merged by name. A machine's definition is its chart as JSON: a pipeline's own
// XState config (states, transitions, invokes), or for a simple job the lifecycle machine
// every such job runs in.

import type { FastifyInstance } from 'fastify';
import { jobMachine } from '../../../machines/job.js';
import type { AnyDefinition } from '../../runtime/registry.js';
import type { MachineInfo } from '../../store/types.js';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { bearerSecurity, errorReplies, machineSummary, machineNameParams } from '../schemas.js';
import { CODE } from '../../errorCodes.js';

interface MachineSummary {
  name: string;
  kind: 'job' | 'pipeline';
  versions: number[];
  hasLoad: boolean;
  maxAttempts?: number;
}

/** The lifecycle chart, computed once (it is the same for every simple job). */
let lifecycleJson: unknown;
const lifecycle = (): unknown => (lifecycleJson ??= JSON.parse(JSON.stringify(jobMachine.definition)));

function summary(info: MachineInfo, local?: AnyDefinition): MachineSummary {
  const kind = local ? local.kind : info.definition !== undefined ? 'pipeline' : 'job';
  return {
    name: info.name,
    kind,
    versions: info.versions,
    hasLoad: info.hasLoad,
    ...(info.maxAttempts !== undefined ? { maxAttempts: info.maxAttempts } : {}),
  };
}

/** Local and registry machines by name; versions merged, the local definitions preferred. */
async function allMachines(
  api: ApiContext,
): Promise<Map<string, { info: MachineInfo; local?: AnyDefinition }>> {
  const out = new Map<string, { info: MachineInfo; local?: AnyDefinition }>();
  for (const info of await api.store.machines()) out.set(info.name, { info });
  for (const info of api.local?.info() ?? []) {
    const remote = out.get(info.name)?.info;
    const versions = [...new Set([...(remote?.versions ?? []), ...info.versions])].sort((a, b) => a - b);
    out.set(info.name, { info: { ...info, versions }, local: api.local!.latest(info.name) });
  }
  return out;
}

export function machineRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/machines',
    {
      schema: {
        summary: 'Known machines',
        tags: ['machines'],
        security: bearerSecurity,
        response: {
          200: { type: 'object', properties: { machines: { type: 'array', items: machineSummary } } },
          ...errorReplies,
        },
      },
    },
    async () => {
      const all = await allMachines(api);
      return {
        machines: [...all.values()]
          .map(({ info, local }) => summary(info, local))
          .sort((a, b) => a.name.localeCompare(b.name)),
      };
    },
  );

  app.get(
    '/machines/:name',
    {
      schema: {
        summary: 'A machine’s definition, as JSON for drawing its chart',
        tags: ['machines'],
        security: bearerSecurity,
        params: machineNameParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            version: { type: 'integer', minimum: 1, description: 'a version this server was given (--jobs)' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              ...machineSummary.properties,
              version: { type: 'integer' },
              definition: { description: 'the XState machine config (states, transitions, invokes) as JSON' },
            },
          },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      const { name } = request.params as { name: string };
      const { version } = request.query as { version?: number };
      const found = (await allMachines(api)).get(name);
      if (!found)
        throw new HttpError(CODE.NOT_FOUND, `no machine named '${name}' is known`, { machine: name });
      const def = version !== undefined ? api.local?.get(name, version) : found.local;
      if (version !== undefined && !def)
        throw new HttpError(
          CODE.NOT_FOUND,
          `machine '${name}' version ${version} is not one this server was given`,
          {
            machine: name,
            field: 'version',
          },
        );
      const s = summary(found.info, def);
      const definition =
        s.kind === 'job'
          ? lifecycle()
          : def?.kind === 'pipeline'
            ? def.definitionJson
            : found.info.definition;
      return { ...s, version: def?.version ?? Math.max(...s.versions), definition };
    },
  );
}
