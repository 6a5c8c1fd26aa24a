import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Gauge, Registry } from 'prom-client';
import { ADMIN_CONFIG, AdminConfig } from '@vigil/config';
import { METRICS_REGISTRY } from '@vigil/platform';
import { TURN_QUEUES } from '@vigil/queue';
import { crossSlotPipeline, REDIS, RedisKeys } from '@vigil/redis';
import { TASK_STATUSES, TaskRepository, TenantSpend, TERMINAL_STATUSES } from '@vigil/tasks';

/** Members of one active status index read per scrape to label active tasks by kind. */
export const MAX_KIND_SAMPLE = 5_000;

type Sample = [Record<string, string>, number];

const ACTIVE_STATUSES = TASK_STATUSES.filter((status) => !TERMINAL_STATUSES.includes(status));

/**
 * What the API's `/metrics` adds to the process metrics, each read at scrape time from the
 * indexes, never by scanning tasks (docs/operations.md, "Metrics"):
 * - `vigil_tasks{tenant, status}`: ZCARD of each tenant's status indexes (tenants from API_KEYS);
 * - `vigil_active_tasks{kind, status}`: the unfinished tasks by kind, from the members of the
 *   active status indexes (at most MAX_KIND_SAMPLE per index and scrape) and their `kind` field;
 * - `vigil_tasks_retained{status}`: finished tasks still in Redis (not yet archived), by terminal
 *   status, summed over the tenants: the same ZCARDs (docs/operations.md, "Sizing Redis");
 * - `vigil_turn_queue_jobs{shard, state}`: each shard's slice queue (BullMQ getJobCounts);
 * - `vigil_tasks_waiting_for_version{kind, version}`: tasks no live Worker runs, from each shard's
 *   kind-version waits (docs/kinds.md, "Versions").
 * - `vigil_tenant_spend_usd{tenant}`: each tenant's model spend of the current UTC day (one GET each).
 */
@Injectable()
export class ApiMetrics implements OnModuleInit {
  private readonly logger = new Logger(ApiMetrics.name);

  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(ADMIN_CONFIG) private readonly admin: AdminConfig,
    @Inject(TURN_QUEUES) private readonly queues: Queue[],
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly tasks: TaskRepository,
    private readonly tenantSpend: TenantSpend,
  ) {}

  onModuleInit(): void {
    const tenants = [...new Set(this.admin.apiKeys.map((key) => key.tenantId))];
    this.gauge(
      'vigil_tasks',
      'Tasks by tenant and status, from the status indexes',
      ['tenant', 'status'],
      async () => {
        const counts = await Promise.all(tenants.map((tenant) => this.tasks.countByStatus(tenant)));
        return counts.flatMap((byStatus, i) =>
          TASK_STATUSES.map((status) => [{ tenant: tenants[i], status }, byStatus[status]] as Sample),
        );
      },
    );
    this.gauge(
      'vigil_tasks_retained',
      'Finished tasks still in Redis (not yet archived) by terminal status, over the API_KEYS tenants',
      ['status'],
      async () => {
        const counts = await Promise.all(tenants.map((tenant) => this.tasks.countByStatus(tenant)));
        return TERMINAL_STATUSES.map(
          (status) => [{ status }, counts.reduce((sum, byStatus) => sum + byStatus[status], 0)] as Sample,
        );
      },
    );
    this.gauge(
      'vigil_active_tasks',
      'Unfinished tasks by kind and status, from the active status indexes',
      ['kind', 'status'],
      async () =>
        [...(await this.activeByKind(tenants))].map(([label, count]) => {
          const [kind, status] = label.split('\n');
          return [{ kind, status }, count] as Sample;
        }),
    );
    this.gauge(
      'vigil_tenant_spend_usd',
      "Each tenant's model spend (tasks, router, tools loop) of the current UTC day, counted while a limit applies",
      ['tenant'],
      async () => {
        const days = await Promise.all(tenants.map((tenant) => this.tenantSpend.today(tenant)));
        return days.map((day) => [{ tenant: day.tenantId }, day.spentUsd] as Sample);
      },
    );
    this.gauge(
      'vigil_turn_queue_jobs',
      "Jobs in each shard's slice queue by state (BullMQ getJobCounts)",
      ['shard', 'state'],
      async () => {
        const counts = await Promise.all(
          this.queues.map((queue) => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')),
        );
        return counts.flatMap((byState, shard) =>
          Object.entries(byState).map(([state, count]) => [{ shard: String(shard), state }, count] as Sample),
        );
      },
    );
    this.gauge(
      'vigil_tasks_waiting_for_version',
      'Tasks waiting for a Worker that runs their kind at the version they were created with',
      ['kind', 'version'],
      () => this.waitingForVersion(),
    );
  }

  /** Tasks paused `kind_version_unavailable`, by the kind and version they wait for. */
  private async waitingForVersion(): Promise<Sample[]> {
    const waits = crossSlotPipeline(this.redis);
    for (const shard of this.keys.allShards()) waits.hvals(this.keys.kindVersionWaits(shard));
    const counts = new Map<string, number>();
    for (const [error, wanted] of (await waits.exec()) ?? []) {
      if (error) throw error;
      for (const entry of wanted as string[]) counts.set(entry, (counts.get(entry) ?? 0) + 1);
    }
    return [...counts].map(([entry, count]) => {
      const at = entry.lastIndexOf('@');
      return [{ kind: entry.slice(0, at), version: entry.slice(at + 1) }, count] as Sample;
    });
  }

  /** A gauge read at scrape time; a failed read leaves it empty for that scrape and says why. */
  private gauge(name: string, help: string, labelNames: string[], read: () => Promise<Sample[]>): void {
    const logger = this.logger;
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const [labels, value] of await read()) this.set(labels, value);
        } catch (error) {
          logger.warn(`metrics: reading ${name} failed: ${String(error)}`);
        }
      },
    });
  }

  private async activeByKind(tenants: string[]): Promise<Map<string, number>> {
    const indexes: { status: string; key: string }[] = [];
    for (const tenant of tenants)
      for (const shard of this.keys.allShards())
        for (const status of ACTIVE_STATUSES)
          indexes.push({ status, key: this.keys.tenantStatusIndex(shard, tenant, status) });
    const members = crossSlotPipeline(this.redis);
    for (const { key } of indexes) members.zrange(key, '0', String(MAX_KIND_SAMPLE - 1));
    const replies = (await members.exec()) ?? [];
    const ids: { id: string; status: string }[] = [];
    replies.forEach(([error, list], i) => {
      if (error) throw error;
      for (const id of list as string[]) ids.push({ id, status: indexes[i].status });
    });
    const counts = new Map<string, number>();
    if (ids.length === 0) return counts;
    const kinds = crossSlotPipeline(this.redis);
    for (const { id } of ids) kinds.hget(this.keys.task(id), 'kind');
    const kindReplies = (await kinds.exec()) ?? [];
    kindReplies.forEach(([, kind], i) => {
      if (typeof kind !== 'string') return;
      const label = `${kind}\n${ids[i].status}`;
      counts.set(label, (counts.get(label) ?? 0) + 1);
    });
    return counts;
  }
}
