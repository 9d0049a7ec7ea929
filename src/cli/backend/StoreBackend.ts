// The CLI on a store it opened itself (--redis): every call goes through the library's Client
// (its checks, its subtree cancel), or the store for what the Client has no method for.

import { queueTotals } from '../../store/queueTotals.js';
import { chartFor } from '../../chart/chartSource.js';
import { jobChart } from '../../chart/jobChart.js';
import type { Client } from '../../client/Client.js';
import type { EnqueueOptions } from '../../client/validateEnqueue.js';
import type { SendOptions } from '../../client/validateSend.js';
import { enqueueArgsOf, type EnqueueBody } from '../../http/enqueueBody.js';
import type { QueueLimitsChange, QueueLimitsView } from '../../client/QueueControls.js';
import type { AnyDefinition } from '../../runtime/registry.js';
import {
  hasFleet,
  hasJobSearch,
  type ListQuery,
  type QueueCounts,
  type SearchQuery,
  type Store,
} from '../../store/types.js';
import { CliError } from '../CliError.js';
import { ScheduleNotFoundError } from '../../errors.js';
import type { OverlapPolicy, ScheduleOptions } from '../../client/schedules/scheduleSpec.js';
import { timeArg } from './timeArg.js';
import type { CliBackend } from './CliBackend.js';

export class StoreBackend implements CliBackend {
  constructor(
    private readonly store: Store,
    private readonly client: Client,
    readonly where: string,
    /** Definitions of `--jobs`: charts are drawn from them first. */
    private readonly local: readonly AnyDefinition[] = [],
  ) {}

  enqueue(machine: string, input: unknown, options: EnqueueOptions): Promise<string> {
    return this.client.enqueue(machine, input, options);
  }

  async enqueueAndWait(machine: string, input: unknown, options: EnqueueOptions, timeoutMs: number) {
    const { id, result } = await this.client.enqueueAndWaitWithInfo(machine, input, options, { timeoutMs });
    return { id, result };
  }

  enqueueMany(jobs: readonly EnqueueBody[]) {
    return this.client.enqueueManyWithInfo(jobs.map(enqueueArgsOf));
  }

  enqueueManyAndWait(jobs: readonly EnqueueBody[], timeoutMs: number) {
    return this.client.enqueueManyAndWaitWithInfo(jobs.map(enqueueArgsOf), { timeoutMs });
  }

  async uncheckedSchema(machine: string): Promise<boolean> {
    if (this.local.some((d) => d.name === machine)) return false;
    return (await this.store.machines()).some((m) => m.name === machine && m.inputSchema === true);
  }

  get(id: string, queue?: string) {
    return this.client.get(id, { queue });
  }

  waitForResult(id: string, options: { timeoutMs: number; queue?: string }) {
    return this.client.waitForResult(id, options);
  }

  events(id: string, queue?: string) {
    return this.client.events(id, { queue });
  }

  send(id: string, event: { type: string; [key: string]: unknown }, options: SendOptions): Promise<void> {
    return this.client.send(id, event, options);
  }

  list(query: ListQuery) {
    return this.client.list(query);
  }

  search(query: SearchQuery) {
    if (!hasJobSearch(this.store)) throw new CliError(`${this.where} cannot search jobs`);
    return this.store.searchJobs(query);
  }

  workers() {
    if (!hasFleet(this.store)) throw new CliError(`${this.where} keeps no fleet`);
    return this.store.workers();
  }

  async cancel(id: string, queue?: string) {
    const cancelled = await this.client.cancel(id, { queue });
    const job = await this.client.get(id, { queue });
    return { cancelled, status: job?.status ?? 'cancelled' };
  }

  deadLetters(queue: string, limit: number) {
    return this.client.deadLetters({ queue, limit });
  }

  broken(queue: string, limit: number) {
    return this.client.broken({ queue, limit });
  }

  retryDeadLetter(id: string, queue?: string): Promise<void> {
    return this.client.retryDeadLetter(id, { queue });
  }

  purgeDeadLetters(queue: string): Promise<number> {
    return this.client.purgeDeadLetters({ queue });
  }

  /** Per queue; a partitioned queue once, summed over its partitions (store/queueTotals.ts). */
  async counts(queue?: string): Promise<Record<string, QueueCounts>> {
    const all: Record<string, QueueCounts> = {};
    for (const [q, total] of await queueTotals(this.store, queue)) all[q] = total.counts;
    return all;
  }

  configureQueue(queue: string, partitions: number): Promise<void> {
    return this.client.configureQueue(queue, { partitions });
  }

  schedules() {
    return this.client.schedules();
  }

  setSchedule(id: string, options: ScheduleOptions) {
    return this.client.schedule(id, options);
  }

  pauseSchedule(id: string, note?: string) {
    return this.client.pauseSchedule(id, note);
  }

  resumeSchedule(id: string) {
    return this.client.resumeSchedule(id);
  }

  async removeSchedule(id: string): Promise<void> {
    if (!(await this.client.removeSchedule(id))) throw new ScheduleNotFoundError(id);
  }

  triggerSchedule(id: string) {
    return this.client.triggerSchedule(id);
  }

  backfillSchedule(id: string, from: string, to: string, overlap?: OverlapPolicy) {
    return this.client.backfillSchedule(id, timeArg(from), timeArg(to), overlap);
  }

  pauseQueue(queue: string, paused: boolean): Promise<void> {
    return paused ? this.client.pauseQueue(queue) : this.client.resumeQueue(queue);
  }

  pauseKey(queue: string, key: string, paused: boolean): Promise<void> {
    return paused ? this.client.pauseKey(queue, key) : this.client.resumeKey(queue, key);
  }

  async queueLimits(queue: string, change?: QueueLimitsChange): Promise<QueueLimitsView> {
    if (change) await this.client.setQueueLimits(queue, change);
    return this.client.queueLimits(queue);
  }

  async machineChart(name: string, version?: number) {
    return chartFor(name, version, await this.store.machines(), this.local);
  }

  async jobChart(id: string, queue?: string) {
    return jobChart(this.client, () => this.store.machines(), id, { queue, local: this.local });
  }

  now(): Promise<number> {
    return this.store.now();
  }

  async close(): Promise<void> {
    this.client.close();
    await this.store.close();
  }
}
