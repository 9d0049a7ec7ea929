// A queue's flow controls over HTTP (docs/flow-control.md), as the Client has them: pause and
// resume, and its concurrency limits with their current use (running and waiting jobs per key).

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, bodyErrorReplies, errorReplies, queueParams } from '../schemas.js';
import type { QueueLimitsChange } from '../../client/QueueControls.js';

// One type list, not anyOf: the server coerces types, and would take 0 for null (a clear).
const limit = {
  type: ['integer', 'null'],
  minimum: 1,
  description: 'a positive integer; null clears the limit; absent keeps it',
} as const;

const rateView = {
  type: 'object',
  properties: {
    limit: { type: 'integer' },
    perMs: { type: 'integer' },
    burst: { type: 'integer' },
    mode: { type: 'string', description: "'skip' when a job over it is cancelled (absent: it waits)" },
  },
} as const;

const rateBody = (what: string) =>
  ({
    type: ['object', 'null'],
    description: `${what}: at most limit + burst starts in any perMs window; mode skip cancels a job over it (default wait); null clears it`,
    required: ['limit', 'perMs'],
    additionalProperties: false,
    properties: {
      limit: { type: 'integer', minimum: 1 },
      perMs: { type: 'integer', minimum: 1 },
      burst: { type: 'integer', minimum: 0 },
      mode: { type: 'string', enum: ['wait', 'skip'] },
    },
  }) as const;

const flow = {
  paused: { type: 'boolean' },
  limits: {
    type: 'object',
    properties: {
      total: { type: 'integer' },
      perKey: { type: 'integer' },
      strategy: { type: 'string' },
      fairness: {
        type: 'string',
        description: "'roundRobin' when the queue alternates its keys (absent: fifo)",
      },
      rateLimit: rateView,
      keyRateLimit: rateView,
      gates: {
        type: 'object',
        description: "most running jobs per machine gate, by gate id ('m:<machine>', 's:<shared name>')",
        additionalProperties: { type: 'integer' },
      },
      machineGates: {
        type: 'object',
        description: 'the gate id of each gated machine',
        additionalProperties: { type: 'string' },
      },
      machineRateLimits: {
        type: 'object',
        description: 'the throttle of each throttled machine on its own, by machine name',
        additionalProperties: rateView,
      },
    },
  },
  running: { type: 'integer', description: 'loading + working jobs' },
  gates: {
    type: 'array',
    description:
      "machine gates with running or waiting jobs; gate 'r:<machine>' holds the jobs waiting for their machine's rate",
    items: {
      type: 'object',
      properties: { gate: { type: 'string' }, running: { type: 'integer' }, waiting: { type: 'integer' } },
    },
  },
  throttledUntil: {
    type: 'integer',
    description:
      'when the throttle (or a rate-limited hold) next lets a job start, if later than now (ms since epoch); absent when one may start now',
  },
  keys: {
    type: 'array',
    description: 'concurrency keys with running or waiting jobs',
    items: {
      type: 'object',
      properties: {
        key: { type: 'string' },
        running: { type: 'integer' },
        waiting: {
          type: 'integer',
          description: "jobs set aside in the key's line (key full, over its rate, or paused)",
        },
        paused: { type: 'boolean' },
      },
    },
  },
} as const;

const limitsReply = {
  type: 'object',
  properties: {
    queue: { type: 'string' },
    ...flow,
    partitions: {
      type: 'array',
      description: "a partitioned queue's stored queues, each with its own gate and use",
      items: { type: 'object', properties: { queue: { type: 'string' }, ...flow } },
    },
  },
} as const;

/** What PUT /queues/:queue/limits takes (QueueLimitsChange): a field left out is kept. */
const limitsChange = {
  type: 'object',
  additionalProperties: false,
  properties: {
    concurrency: {
      type: 'object',
      additionalProperties: false,
      properties: {
        total: limit,
        perKey: limit,
        strategy: {
          type: 'string',
          enum: ['queue', 'cancelNewest', 'cancelInProgress'],
          description: 'what a job whose key is full does (default queue)',
        },
        fairness: {
          type: 'string',
          enum: ['fifo', 'roundRobin'],
          description:
            'between concurrency keys: roundRobin alternates the keys; fifo (default) starts jobs in queue order',
        },
      },
    },
    rateLimit: rateBody('the throttle of the queue'),
    keyRateLimit: rateBody('the throttle of each concurrency key on its own'),
    machines: {
      type: 'object',
      description:
        "limits of single machines: { concurrency } (gate 'm:<machine>') or { shared: '<name>' } (the shared limit it counts against), and { rateLimit } (its own throttle); a field left out is kept; null takes all of the machine's away",
      additionalProperties: {
        type: ['object', 'null'],
        additionalProperties: false,
        properties: {
          concurrency: { type: 'integer', minimum: 1 },
          shared: { type: 'string', minLength: 1 },
          rateLimit: rateBody("the machine's own throttle"),
        },
      },
    },
    shared: {
      type: 'object',
      description: "named limits shared by the machines that name them (gate 's:<name>'); null clears one",
      additionalProperties: {
        type: ['object', 'null'],
        required: ['concurrency'],
        additionalProperties: false,
        properties: { concurrency: { type: 'integer', minimum: 1 } },
      },
    },
  },
} as const;

export function queueFlowRoutes(app: FastifyInstance, api: ApiContext): void {
  pauseRoutes(app, api);
  limitsRoutes(app, api);
}

/** Pause and resume of a queue, and of one concurrency key in it. */
function pauseRoutes(app: FastifyInstance, api: ApiContext): void {
  for (const action of ['pause', 'resume'] as const) {
    app.post(
      `/queues/:queue/${action}`,
      {
        schema: {
          summary:
            action === 'pause'
              ? 'Pause a queue: supervisors claim nothing from it, running jobs finish, enqueues are accepted'
              : 'Resume a paused queue',
          tags: ['queues'],
          security: bearerSecurity,
          params: queueParams,
          response: {
            200: { type: 'object', properties: { queue: { type: 'string' }, paused: { type: 'boolean' } } },
            ...bodyErrorReplies,
          },
        },
      },
      async (request) => {
        const { queue } = request.params as { queue: string };
        if (action === 'pause') await api.client.pauseQueue(queue);
        else await api.client.resumeQueue(queue);
        return { queue, paused: action === 'pause' };
      },
    );
  }

  for (const action of ['pause', 'resume'] as const) {
    app.post(
      `/queues/:queue/keys/:key/${action}`,
      {
        schema: {
          summary:
            action === 'pause'
              ? 'Pause one concurrency key: its jobs wait in its line, its running jobs finish, other keys run'
              : 'Resume a paused concurrency key',
          tags: ['queues'],
          security: bearerSecurity,
          params: {
            type: 'object',
            required: ['queue', 'key'],
            properties: { ...queueParams.properties, key: { type: 'string', minLength: 1 } },
          },
          response: {
            200: {
              type: 'object',
              properties: { queue: { type: 'string' }, key: { type: 'string' }, paused: { type: 'boolean' } },
            },
            ...bodyErrorReplies,
          },
        },
      },
      async (request) => {
        const { queue, key } = request.params as { queue: string; key: string };
        if (action === 'pause') await api.client.pauseKey(queue, key);
        else await api.client.resumeKey(queue, key);
        return { queue, key, paused: action === 'pause' };
      },
    );
  }
}

/** A queue's limits with their current use, read and set. */
function limitsRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/queues/:queue/limits',
    {
      schema: {
        summary: "A queue's pause, limits, running jobs, and running and waiting jobs per concurrency key",
        tags: ['queues'],
        security: bearerSecurity,
        params: queueParams,
        response: { 200: limitsReply, ...errorReplies },
      },
    },
    async (request) => api.client.queueLimits((request.params as { queue: string }).queue),
  );

  app.put(
    '/queues/:queue/limits',
    {
      schema: {
        summary: "Set a queue's concurrency limits and throttle at run time",
        tags: ['queues'],
        security: bearerSecurity,
        params: queueParams,
        body: limitsChange,
        response: { 200: limitsReply, ...bodyErrorReplies },
      },
    },
    async (request) => {
      const { queue } = request.params as { queue: string };
      await api.client.setQueueLimits(queue, request.body as QueueLimitsChange);
      return api.client.queueLimits(queue);
    },
  );
}
