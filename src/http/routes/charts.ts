// Charts: a machine's chart model and a job's marks on its machine's chart, as JSON (the model
// of src/store/chartModel.ts), for clients that draw them (`machinist chart --url`, `status`'s
// accepted events). The chart comes from the definitions the server was given, else from the
// registry workers publish; a job's marks are read from its record and audit log here, where
// the whole record is (the API's job view leaves the snapshot out).

import type { FastifyInstance } from 'fastify';
import { chartFor } from '../../chart/chartSource.js';
import { jobChart } from '../../chart/jobChart.js';
import type { AnyDefinition } from '../../runtime/registry.js';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, errorReplies, idParams, queueQuery, machineNameParams } from '../schemas.js';

const chartModel = {
  type: 'object',
  description:
    'the chart model: { name, version, kind, root, nodes, edges } (states with their full ids, transitions as edges)',
  additionalProperties: true,
} as const;

const chartMarks = {
  type: 'object',
  description:
    'the job on its chart: { active, stopped?, ended?, visits: { stateId: n }, edgeVisits: { edgeId: n } }',
  additionalProperties: true,
} as const;

/** Every definition this server was given (`--jobs`): chartFor prefers one that matches. */
function localDefinitions(api: ApiContext): AnyDefinition[] {
  const local = api.local;
  if (!local) return [];
  return local.info().flatMap((m) => m.versions.flatMap((v) => local.get(m.name, v) ?? []));
}

export function chartRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/machines/:name/chart',
    {
      schema: {
        summary: 'A machine’s chart model',
        tags: ['machines'],
        security: bearerSecurity,
        params: machineNameParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { version: { type: 'integer', minimum: 1, description: 'default: the newest' } },
        },
        response: { 200: chartModel, ...errorReplies },
      },
    },
    async (request) => {
      const { name } = request.params as { name: string };
      const { version } = request.query as { version?: number };
      return chartFor(name, version, await api.store.machines(), localDefinitions(api));
    },
  );

  app.get(
    '/jobs/:id/chart',
    {
      schema: {
        summary: 'A job’s machine chart, with the job marked on it',
        description:
          'The states it is in, how often it entered each state and took each transition (from its audit log).',
        tags: ['jobs'],
        security: bearerSecurity,
        params: idParams,
        querystring: queueQuery,
        response: {
          200: { type: 'object', properties: { graph: chartModel, marks: chartMarks } },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const { queue } = request.query as { queue?: string };
      const machines = () => api.store.machines();
      const { graph, marks } = await jobChart(api.client, machines, id, {
        queue,
        local: localDefinitions(api),
      });
      return { graph, marks };
    },
  );
}
