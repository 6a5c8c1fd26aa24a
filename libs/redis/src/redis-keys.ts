/**
 * Every Redis key name Vigil uses comes from here. A task lives on one shard, named by the hash tag
 * `{s<n>}`; its keys, its shard's indexes, event stream and slice queue share that tag, so every
 * script call stays inside one Redis Cluster slot.
 */
export class RedisKeys {
  constructor(
    readonly prefix: string,
    readonly shards: number,
  ) {}

  shardOf(taskId: string): number {
    if (this.shards === 1) return 0;
    // FNV-1a: stable across processes and versions, cheap, well spread for short ids.
    let hash = 0x811c9dc5;
    for (let i = 0; i < taskId.length; i++) {
      hash ^= taskId.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return hash % this.shards;
  }

  allShards(): number[] {
    return Array.from({ length: this.shards }, (_, shard) => shard);
  }

  shardBase(shard: number): string {
    return `${this.prefix}:{s${shard}}`;
  }

  task(taskId: string): string {
    return `${this.shardBase(this.shardOf(taskId))}:task:${taskId}`;
  }

  actions(taskId: string): string {
    return `${this.task(taskId)}:actions`;
  }

  journal(taskId: string): string {
    return `${this.task(taskId)}:journal`;
  }

  findings(taskId: string): string {
    return `${this.task(taskId)}:findings`;
  }

  outputs(taskId: string): string {
    return `${this.task(taskId)}:outputs`;
  }

  /**
   * The task's artifact list (JSON entries, oldest first): the images and binary outputs its tools
   * returned, kept in the object store by content hash (docs/api.md, "Artifacts").
   */
  artifacts(taskId: string): string {
    return `${this.task(taskId)}:artifacts`;
  }

  /** Logical steps that succeeded (the exact completedUnits). */
  doneSteps(taskId: string): string {
    return `${this.task(taskId)}:done`;
  }

  /** Scripted misbehaviours that already fired (each fires once per task). */
  triggers(taskId: string): string {
    return `${this.task(taskId)}:triggers`;
  }

  messages(taskId: string): string {
    return `${this.task(taskId)}:messages`;
  }

  /** Instructions given to the task while it runs (docs/api.md, "Steering"): a capped list, oldest first. */
  steering(taskId: string): string {
    return `${this.task(taskId)}:steering`;
  }

  /**
   * The model's live output of the task (`model.delta`, `model.call_abandoned`): a short capped
   * stream that expires when the task stops streaming, never part of its history.
   */
  liveOutput(taskId: string): string {
    return `${this.task(taskId)}:live`;
  }

  /**
   * Set while someone follows the task's live output (an open event stream renews it; it expires
   * on its own): a Worker publishes a model call's text only while it is there.
   */
  liveWatched(taskId: string): string {
    return `${this.task(taskId)}:watched`;
  }

  /** User-message id -> its position in the message log (the notifier's dedupe and lookup). */
  messageIndex(taskId: string): string {
    return `${this.task(taskId)}:message-ids`;
  }

  tenantIndex(shard: number, tenantId: string): string {
    return `${this.shardBase(shard)}:idx:tenant:${tenantId}`;
  }

  tenantStatusIndex(shard: number, tenantId: string, status: string): string {
    return `${this.shardBase(shard)}:idx:tenant:${tenantId}:${status}`;
  }

  /** Active tasks scored by the time their heartbeat must have arrived. */
  deadlineIndex(shard: number): string {
    return `${this.shardBase(shard)}:idx:deadline`;
  }

  /** Running tasks whose Worker reported a call in flight, scored by the call's deadline. */
  callDeadlineIndex(shard: number): string {
    return `${this.shardBase(shard)}:idx:calls`;
  }

  verifyingIndex(shard: number): string {
    return `${this.shardBase(shard)}:idx:verifying`;
  }

  /** Unfinished tasks scored by when a clock runs out: active time used up, or a question unanswered. */
  expiryIndex(shard: number): string {
    return `${this.shardBase(shard)}:idx:expiry`;
  }

  /**
   * Tasks paused because no live Worker runs their kind's version (docs/kinds.md, "Versions"):
   * hash task id -> `<kind>@<version>`, kept by transition-task.lua.
   */
  kindVersionWaits(shard: number): string {
    return `${this.shardBase(shard)}:idx:kind-version-waits`;
  }

  /** Finished tasks scored by when their retention runs out and they leave Redis for the archive. */
  retentionIndex(shard: number): string {
    return `${this.shardBase(shard)}:idx:retention`;
  }

  /** Unfinished tasks scored by when their next user update is due. */
  updatesIndex(shard: number): string {
    return `${this.shardBase(shard)}:idx:updates`;
  }

  events(shard: number): string {
    return `${this.shardBase(shard)}:events`;
  }

  /** User messages appended but not yet handed to their external channels (transactional outbox). */
  notifyOutbox(shard: number): string {
    return `${this.shardBase(shard)}:notify:outbox`;
  }

  /** Webhook deliveries that exhausted their retries, newest first (JSON entries). */
  webhookDeadLetters(shard: number): string {
    return `${this.shardBase(shard)}:webhooks:dead`;
  }

  /** BullMQ keys are `<prefix>:<queue>:…`; the tag inside the queue name pins them to the shard. */
  sliceQueueName(shard: number): string {
    return `turns{s${shard}}`;
  }

  /** BullMQ queue that wakes a Watcher when a Worker hands a task of the shard over. */
  wakeQueueName(shard: number): string {
    return `wake{s${shard}}`;
  }

  /** BullMQ queue of webhook deliveries; the tag pins its keys to the shard like the slice queue. */
  webhookQueueName(shard: number): string {
    return `webhooks{s${shard}}`;
  }

  /**
   * A schedule's record (hash: spec, state, last fire). Every schedule key carries the one tag
   * `{sched}`: a tenant's count bound, the indexes and a fire's claim and run stay in one Redis
   * Cluster slot (schedules are few: SCHEDULES_PER_TENANT bounds them).
   */
  schedule(scheduleId: string): string {
    return `${this.prefix}:{sched}:schedule:${scheduleId}`;
  }

  /** A schedule's runs (hash: fire time ms -> run JSON), beside their order by fire time. */
  scheduleRuns(scheduleId: string): string {
    return `${this.schedule(scheduleId)}:runs`;
  }

  /** A schedule's fire times, scored by themselves: the runs' order, and which to drop past the cap. */
  scheduleRunOrder(scheduleId: string): string {
    return `${this.schedule(scheduleId)}:run-order`;
  }

  /** A tenant's schedule ids scored by creation time. */
  tenantSchedules(tenantId: string): string {
    return `${this.prefix}:{sched}:idx:tenant:${tenantId}`;
  }

  /** Every schedule id of every tenant scored by creation time (the dashboard's list). */
  allSchedules(): string {
    return `${this.prefix}:{sched}:idx:all`;
  }

  /** BullMQ queue whose job schedulers fire the schedules; the tag pins its keys to one slot. */
  scheduleQueueName(): string {
    return 'schedules{sched}';
  }

  spend(): string {
    return `${this.prefix}:spend:global`;
  }

  /**
   * A tenant's spend of one UTC day (`YYYY-MM-DD`). Its hash tag is the global counter's whole name,
   * so both sit in the one cluster slot reserve-global-spend.lua needs (the untagged global key
   * hashes by that name too).
   */
  tenantDaySpend(tenantId: string, day: string): string {
    return `${this.prefix}:{${this.spend()}}:tenant-spend:${tenantId}:${day}`;
  }

  /**
   * Every tenant's running places and queues for them (claim-tenant-slot.lua), all under one hash
   * tag: the fair share compares the tenants' held places in one script (docs/operations.md,
   * "Tenant limits"). `base` is what the scripts prefix a tenant id with to reach another tenant's
   * keys; `tenants` holds each active tenant's limits and last ask.
   */
  tenantSlots(tenantId: string): {
    tenants: string;
    base: string;
    running: string;
    waiting: string;
    asks: string;
  } {
    const base = `${this.prefix}:{tenant-slots}:`;
    return {
      tenants: `${base}tenants`,
      base,
      running: `${base}${tenantId}:running`,
      waiting: `${base}${tenantId}:waiting`,
      asks: `${base}${tenantId}:asks`,
    };
  }

  /** The last spell of a full Redis the Watchers saw, JSON `{since, until}` (docs/operations.md, "A full Redis"). */
  storeFullWindow(): string {
    return `${this.prefix}:store-full`;
  }

  /**
   * What each live Worker runs (docs/kinds.md, "Versions"): hash Worker id -> JSON
   * `{runs: {<kind>: [versions]}, until}`, refreshed while it lives, ignored once `until` passed.
   */
  workerKinds(): string {
    return `${this.prefix}:worker-kinds`;
  }

  /** Worker processes that announced themselves (id -> pid, host, startedAt). */
  workerRegistry(): string {
    return `${this.prefix}:workers`;
  }

  /**
   * The CLIENT SETNAME of a Worker's liveness connection: the Watcher reads Worker ids back from
   * CLIENT LIST (`workerIdOfClient`), so a killed Worker is found when its connection vanishes.
   */
  workerClientName(workerId: string): string {
    return `${RedisKeys.WORKER_CLIENT_PREFIX}${workerId}`;
  }

  /** The Worker id of a liveness connection's name, or null for any other client. */
  workerIdOfClient(clientName: string): string | null {
    return clientName.startsWith(RedisKeys.WORKER_CLIENT_PREFIX)
      ? clientName.slice(RedisKeys.WORKER_CLIENT_PREFIX.length)
      : null;
  }

  /** Pub/sub channel of stop and pause signals to Workers (the status change itself is durable). */
  controlChannel(): string {
    return `${this.prefix}:control`;
  }

  private static readonly WORKER_CLIENT_PREFIX = 'vigil-worker:';

  /** The Redlock resource a Watcher holds while it archives a shard's expired tasks. */
  retentionLease(shard: number): string {
    return `${this.prefix}:retention-lease:{s${shard}}`;
  }

  /** The Redlock resource a Watcher holds while it recovers a task (`recovery:{id}`). */
  recoveryLease(taskId: string): string {
    return `${this.prefix}:recovery:{${taskId}}`;
  }
}
