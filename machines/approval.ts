// Example pipeline: an approval flow. It asks for a review, then parks (no worker slot, no
// memory) until an APPROVE or REJECT event arrives or its deadline passes. The deadline is a
// plain XState `after`, which Machinist keeps durably: it survives every worker restarting.

import { assign, setup } from 'xstate';
import { definePipeline } from '../src/pipeline/definePipeline.js';
import { step } from '../src/pipeline/step.js';

export interface ApprovalInput {
  documentId: string;
  /** How long a reviewer has; default 24 h. */
  deadlineMs?: number;
}

export type ApprovalEvent = { type: 'APPROVE'; by: string } | { type: 'REJECT'; by: string; reason?: string };

export interface ApprovalServices {
  notifyReviewer(documentId: string, ctx: { idempotencyKey: string }): Promise<void>;
  publish(documentId: string, ctx: { idempotencyKey: string }): Promise<string>;
}

export const DAY_MS = 24 * 3600 * 1000;

export function approvalMachine(services: ApprovalServices) {
  return setup({
    types: {
      input: {} as ApprovalInput,
      context: {} as {
        documentId: string;
        deadlineMs: number;
        outcome: 'pending' | 'published' | 'rejected' | 'expired';
        decidedBy: string | null;
        reason: string | null;
        url: string | null;
      },
      events: {} as ApprovalEvent,
    },
    actors: {
      notifyReviewer: step<void, { documentId: string }>(({ input, idempotencyKey }) =>
        services.notifyReviewer(input.documentId, { idempotencyKey }),
      ),
      publish: step<string, { documentId: string }>(({ input, idempotencyKey }) =>
        services.publish(input.documentId, { idempotencyKey }),
      ),
    },
    delays: { deadline: ({ context }) => context.deadlineMs },
  }).createMachine({
    id: 'approval',
    initial: 'requesting',
    context: ({ input }) => ({
      documentId: input.documentId,
      deadlineMs: input.deadlineMs ?? DAY_MS,
      outcome: 'pending' as const,
      decidedBy: null,
      reason: null,
      url: null,
    }),
    states: {
      requesting: {
        invoke: {
          id: 'notify',
          src: 'notifyReviewer',
          input: ({ context }) => ({ documentId: context.documentId }),
          onDone: 'awaitingDecision',
        },
      },
      awaitingDecision: {
        on: {
          APPROVE: { target: 'publishing', actions: assign({ decidedBy: ({ event }) => event.by }) },
          REJECT: {
            target: 'rejected',
            actions: assign({
              outcome: 'rejected',
              decidedBy: ({ event }) => event.by,
              reason: ({ event }) => event.reason ?? null,
            }),
          },
        },
        after: { deadline: { target: 'expired', actions: assign({ outcome: 'expired' }) } },
      },
      publishing: {
        invoke: {
          id: 'publish',
          src: 'publish',
          input: ({ context }) => ({ documentId: context.documentId }),
          onDone: {
            target: 'published',
            actions: assign({ outcome: 'published', url: ({ event }) => event.output }),
          },
        },
      },
      published: { type: 'final' },
      rejected: { type: 'final' },
      expired: { type: 'final' },
    },
    // A machine's output comes from its root `output` (XState v5), computed on reaching a final state.
    output: ({ context }) => {
      if (context.outcome === 'published')
        return { outcome: 'published', by: context.decidedBy, url: context.url };
      if (context.outcome === 'rejected')
        return { outcome: 'rejected', by: context.decidedBy, reason: context.reason };
      return { outcome: 'expired', by: null };
    },
  });
}

export function approvalPipeline(services: ApprovalServices) {
  return definePipeline({ name: 'approval', version: 1, machine: approvalMachine(services) });
}
