// Every Prometheus series Machinist exports, by name: worker and HTTP processes register the
// same set (MachinistMetrics), so dashboards and alerts see one schema whichever process
// they scrape. docs/metrics.md says what each means.

import { DELIVERY_RESULTS, type DeliveryResult } from '../runtime/JobObserver.js';

export const SERIES = {
  jobs: 'machinist_jobs_total',
  jobDuration: 'machinist_job_duration_seconds',
  queueDepth: 'machinist_queue_depth',
  leaseRequeues: 'machinist_lease_requeues_total',
  webhookDeliveries: 'machinist_webhook_deliveries_total',
  httpRequests: 'machinist_http_requests_total',
  httpDuration: 'machinist_http_request_duration_seconds',
  stateTransitions: 'machinist_state_transitions_total',
  stateDwell: 'machinist_state_dwell_seconds',
  replicaShortfalls: 'machinist_replica_shortfalls_total',
} as const;

/** Job and state durations (s): from a no-op job's milliseconds to a long step's minutes. */
export const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];
/** HTTP request durations (s); ?wait requests sit in the upper buckets. */
export const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The results a webhook delivery is counted under (the dispatcher's); anything else counts as 'other'. */
export const WEBHOOK_RESULTS = DELIVERY_RESULTS;
export type WebhookResult = DeliveryResult;

/** HTTP methods counted by name; anything else counts as 'other'. */
export const HTTP_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);
