// OpenTelemetry messaging semantic conventions as Machinist fills them: the system is
// `machinist`, the destination is the queue, the message id is the job id.

import type { Attributes } from '@opentelemetry/api';

export function messagingAttributes(
  operation: 'publish' | 'process',
  queue: string,
  jobId: string,
  machine: string | undefined,
): Attributes {
  return {
    'messaging.system': 'machinist',
    'messaging.operation.name': operation,
    // semconv 1.27+: a publish is a 'send' operation type
    'messaging.operation.type': operation === 'publish' ? 'send' : 'process',
    'messaging.destination.name': queue,
    'messaging.message.id': jobId,
    ...(machine !== undefined ? { 'machinist.machine': machine } : {}),
  };
}
