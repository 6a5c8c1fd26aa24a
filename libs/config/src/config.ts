import {
  ConfigError,
  Env,
  readBool,
  readInt,
  readList,
  readNumber,
  readOptional,
  readOptionalInt,
  readString,
  readUrl,
} from './env-parsers';
import type { ToolCatalog } from './tool-catalog';
import { loadToolCatalog } from './tool-catalog.loader';

export const MODEL_NAMES = ['opus', 'gemini'] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

export interface ApiKey {
  tenantId: string;
  key: string;
}

/** The one validated configuration object; every app reads its slice of it. */
export interface VigilConfig {
  redisUrl: string;
  /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES); when set they replace REDIS_URL. */
  redisClusterNodes: { host: string; port: number }[];
  redlockUrls: string[];
  keyPrefix: string;
  shards: number;
  port: number;
  workerPort: number;
  watcherPort: number;
  notifierPort: number;
  heartbeatIntervalMs: number;
  watcherIntervalMs: number;
  staleAfterMs: number;
  userUpdateIntervalMs: number;
  /** Least time between two `task.progress` events of one task on the event stream (0: every step). */
  progressEventIntervalMs: number;
  sliceMaxSteps: number;
  taskMaxSlices: number;
  taskMaxDurationMs: number;
  maxConsecutiveErrors: number;
  /** Identical calls (tool and canonical arguments) in one attempt that end it as `looping`. */
  loopRepeatLimit: number;
  /** Model calls in a row, within one attempt, with no new completed unit or finding that end it as `looping`. */
  loopIdleCalls: number;
  /** The model of every task's first attempt (a task may name its own). */
  firstModel: ModelName;
  /** The model of each retry, in order: n entries, n retries. */
  retryPolicy: ModelName[];
  /** Deadline of one model call, the SDK's own timeouts and retries included. */
  modelCallTimeoutMs: number;
  /** Deadline of one tool call unless the tool declares its own. */
  toolCallTimeoutMs: number;
  /** How long a Worker told to stop (SIGTERM) lets in-flight steps finish before it aborts them. */
  drainTimeoutMs: number;
  /** How long a task waits for a person's answer before it fails. */
  humanWaitTimeoutMs: number;
  /** How often a Watcher looks for Worker processes whose connection vanished. */
  livenessIntervalMs: number;
  taskBudgetUsd: number;
  globalSpendLimitUsd: number | undefined;
  workerConcurrency: number;
  eventStreamMaxLen: number;
  anthropicApiKey: string | undefined;
  anthropicBaseUrl: string | undefined;
  anthropicModel: string;
  geminiApiKey: string | undefined;
  geminiBaseUrl: string | undefined;
  geminiModel: string;
  metaApiBaseUrl: string;
  metaAccessToken: string | undefined;
  apiKeys: ApiKey[];
  /** Variables left at their public development defaults (API_KEYS, WEBHOOK_SECRET): warned at boot. */
  developmentDefaults: string[];
  adminPassword: string | undefined;
  webhookSecret: string;
  webhookAllowPrivate: boolean;
  /** Webhook target for tasks created without `notify.webhookUrl`. */
  webhookDefaultUrl: string | undefined;
  /** Deliveries per message before it is dead-lettered; with the backoff, bounds the retry window. */
  webhookMaxAttempts: number;
  /** First retry delay; each next one doubles (with jitter). */
  webhookBackoffMs: number;
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  /** A stream message pending this long on a notifier is presumed orphaned and claimed by another. */
  notifierClaimIdleMs: number;
  /** Interval of the SSE keep-alive comments. */
  sseHeartbeatMs: number;
  /** Writes (create, controls, conversation messages) one API key may make per minute, per route. */
  rateLimitPerMinute: number;
  /** Non-terminal tasks one tenant may have at once; undefined: no cap. */
  maxActiveTasksPerTenant: number | undefined;
  /** Concurrent SSE streams (`/v1/tasks/:id/events`) one API key may hold open, across API processes. */
  maxSseStreamsPerKey: number;
  /** Schedules one tenant may hold (docs/schedules.md, "Bounds"). */
  schedulesPerTenant: number;
  /** The shortest time a schedule's cron may leave between two fires (docs/schedules.md, "Bounds"). */
  scheduleMinIntervalMs: number;
  /** Bearer token that `/metrics` requires on every app when set. */
  metricsToken: string | undefined;
  /** Path of the operator's tool catalog (VIGIL_TOOLS), JSON in the MCP clients' convention. */
  toolsCatalogPath: string | undefined;
  /** The catalog VIGIL_TOOLS names, parsed and validated at boot (undefined: no tools from outside). */
  toolCatalog: ToolCatalog | undefined;
  /** HTTP tools and `http_json` checks may reach private and loopback addresses. */
  toolsAllowPrivate: boolean;
  /** Module paths of code kinds loaded at boot (VIGIL_KINDS). */
  kindModules: string[];
  /** Children of one parent that run at once; the rest queue. */
  maxParallelChildren: number;
  /**
   * How long a slice job parked for one of its tenant's running places waits before it asks again,
   * at the latest: a place given back wakes the first parked job at once (docs/operations.md, "Tenant limits").
   */
  tenantSlotRetryMs: number;
  /** TENANT_FAIR_SHARE: tenants share the running places by weight while another waits (docs/operations.md, "Tenant limits"). */
  tenantFairShare: boolean;
  /** Images one model prompt carries at most, the newest; older ones become a one-line reference. */
  visionMaxImages: number;
  /** The cheap model that routes conversation messages (a model id of either provider). */
  routerModel: string | undefined;
  /** Absolute base of links sent to users (human answer pages). */
  publicBaseUrl: string;
  /** How long a completed or cancelled task stays whole in Redis before it is archived. */
  taskRetentionMs: number;
  /** How long a failed task stays whole in Redis before it is archived. */
  failedTaskRetentionMs: number;
  /** ARCHIVE: on writes expired tasks to the object store before removing them; off only removes them. */
  archive: boolean;
  /** Where archives, artifacts and large outputs go: `file://<dir>` or `s3://<bucket>/<prefix>`. */
  objectStoreUrl: string;
  /** An S3-compatible endpoint (S3_ENDPOINT); unset: AWS itself. */
  s3Endpoint: string | undefined;
  /** Path-style S3 addressing (S3_FORCE_PATH_STYLE), which most S3-compatible services need. */
  s3ForcePathStyle: boolean;
  /** A tool output larger than this goes to the object store and is referenced from the record. */
  maxInlineOutputBytes: number;
  /** An artifact (an image or file a tool returned) larger than this is not kept, nor served. */
  maxArtifactBytes: number;
  /** How long a completed slice or wake job stays in BullMQ (its dashboard's history). */
  finishedJobRetentionMs: number;
  /** Expired tasks one sweep archives per shard before it yields. */
  archiveBatchSize: number;
  /**
   * While tasks of a shard are active, its retention sweep takes only the tasks overdue by this
   * much (ARCHIVE_BUSY_LAG_MS): archiving waits for a quiet moment, never longer than this. 0: at once.
   */
  archiveBusyLagMs: number;
  /**
   * Where traces go (docs/observability.md, "Pointing Vigil at a collector"):
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT. Unset (or
   * OTEL_SDK_DISABLED=true): tracing is off and the OpenTelemetry SDK is never loaded.
   */
  otelEndpoint: string | undefined;
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the spec's default). */
  otelProtocol: OtelProtocol;
  /** OTEL_SERVICE_NAME; unset, each app is `vigil-<app>`. */
  otelServiceName: string | undefined;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: prompts and tool arguments and results on spans. */
  otelCaptureContent: boolean;
  logLevel: string;
  /** `json` (default, for machines) or `pretty` (for people: start:all uses it). */
  logFormat: 'json' | 'pretty';
}

export const OTEL_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtelProtocol = (typeof OTEL_PROTOCOLS)[number];

/** The standard OTLP variables Vigil reads itself; the SDK reads the rest (headers, OTEL_BSP_*, timeouts). */
function readOtel(
  env: Env,
): Pick<VigilConfig, 'otelEndpoint' | 'otelProtocol' | 'otelServiceName' | 'otelCaptureContent'> {
  const disabled = readBool(env, 'OTEL_SDK_DISABLED', false);
  const tracesEndpoint = readUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', undefined, ['http:', 'https:']);
  const endpoint = readUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', undefined, ['http:', 'https:']);
  const protocolVariable = readOptional(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = readString(env, protocolVariable, 'http/protobuf');
  if (!(OTEL_PROTOCOLS as readonly string[]).includes(protocol))
    throw new ConfigError(
      `${protocolVariable} must be ${OTEL_PROTOCOLS.join(' or ')} (grpc is not supported), got "${protocol}"`,
    );
  return {
    otelEndpoint: disabled ? undefined : (tracesEndpoint ?? endpoint),
    otelProtocol: protocol as OtelProtocol,
    otelServiceName: readOptional(env, 'OTEL_SERVICE_NAME'),
    otelCaptureContent: readBool(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', false),
  };
}

const DEFAULT_API_KEYS = 'local:local-dev-key';

function parseApiKeys(value: string): ApiKey[] {
  return value.split(',').map((entry) => {
    const [tenantId, key, extra] = entry.trim().split(':');
    if (
      !tenantId ||
      !key ||
      extra !== undefined ||
      !/^[A-Za-z0-9_-]{1,64}$/.test(tenantId) ||
      key.length < 8
    ) {
      throw new ConfigError(
        `API_KEYS must be a comma-separated list of tenant:key pairs (tenant [A-Za-z0-9_-], key of 8+ characters), got "${entry}"`,
      );
    }
    return { tenantId, key };
  });
}

function parseHostPort(node: string): { host: string; port: number } {
  const match = /^([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(node);
  const port = match ? Number(match[2]) : 0;
  if (!match || port < 1 || port > 65535)
    throw new ConfigError(`REDIS_CLUSTER_NODES must be a comma-separated list of host:port, got "${node}"`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function parseRetryPolicy(models: string[]): ModelName[] {
  if (models.length === 0) throw new ConfigError('RETRY_POLICY must name at least one model');
  return models.map((model) => {
    if (!(MODEL_NAMES as readonly string[]).includes(model)) {
      throw new ConfigError(`RETRY_POLICY may only name ${MODEL_NAMES.join(', ')}, got "${model}"`);
    }
    return model as ModelName;
  });
}

function readModel(env: Env, name: string, fallback: ModelName): ModelName {
  const model = readString(env, name, fallback);
  if (!(MODEL_NAMES as readonly string[]).includes(model))
    throw new ConfigError(`${name} may only name ${MODEL_NAMES.join(', ')}, got "${model}"`);
  return model as ModelName;
}

function readObjectStoreUrl(env: Env): string {
  const url = readString(env, 'OBJECT_STORE_URL', 'file://./.vigil/objects');
  const file = /^file:\/\/(.+)$/.exec(url);
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/[^?#]*)?$/.exec(url);
  if (!(file && file[1].trim()) && !s3)
    throw new ConfigError(
      `OBJECT_STORE_URL must be file://<directory> or s3://<bucket>/<prefix>, got "${url.replace(/\/\/[^@/]*@/, '//…@')}"`,
    );
  return url;
}

function readLogFormat(env: Env): 'json' | 'pretty' {
  const format = readString(env, 'LOG_FORMAT', 'json');
  if (format !== 'json' && format !== 'pretty')
    throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${format}"`);
  return format;
}

export function loadConfig(env: Env = process.env): VigilConfig {
  const heartbeatIntervalMs = readInt(env, 'HEARTBEAT_INTERVAL_MS', 30_000, 10);
  const staleAfterMs = readInt(env, 'STALE_AFTER_MS', 120_000, 10);
  if (staleAfterMs <= heartbeatIntervalMs) {
    throw new ConfigError(
      `STALE_AFTER_MS (${staleAfterMs}) must be larger than HEARTBEAT_INTERVAL_MS (${heartbeatIntervalMs}), or live tasks look dead`,
    );
  }
  const keyPrefix = readString(env, 'KEY_PREFIX', 'vigil');
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(keyPrefix)) {
    throw new ConfigError(`KEY_PREFIX may use letters, digits and _.:- (no braces), got "${keyPrefix}"`);
  }
  const apiKeysRaw = readOptional(env, 'API_KEYS');
  const webhookSecretRaw = readOptional(env, 'WEBHOOK_SECRET');
  return {
    redisUrl: readUrl(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:'])!,
    redisClusterNodes: readList(env, 'REDIS_CLUSTER_NODES', []).map((node) => parseHostPort(node)),
    redlockUrls: readList(env, 'REDLOCK_URLS', []).map((url, i) =>
      readUrl({ [`REDLOCK_URLS[${i}]`]: url }, `REDLOCK_URLS[${i}]`, undefined, ['redis:', 'rediss:'])!,
    ),
    keyPrefix,
    shards: readInt(env, 'SHARDS', 1, 1, 1024),
    port: readInt(env, 'PORT', 3000, 0, 65535),
    workerPort: readInt(env, 'WORKER_PORT', 3001, 0, 65535),
    watcherPort: readInt(env, 'WATCHER_PORT', 3002, 0, 65535),
    notifierPort: readInt(env, 'NOTIFIER_PORT', 3003, 0, 65535),
    heartbeatIntervalMs,
    watcherIntervalMs: readInt(env, 'WATCHER_INTERVAL_MS', 60_000, 10),
    staleAfterMs,
    userUpdateIntervalMs: readInt(env, 'USER_UPDATE_INTERVAL_MS', 120_000, 10),
    progressEventIntervalMs: readInt(env, 'PROGRESS_EVENT_INTERVAL_MS', 1_000, 0, 3_600_000),
    sliceMaxSteps: readInt(env, 'SLICE_MAX_STEPS', 14, 1, 10_000),
    taskMaxSlices: readInt(env, 'TASK_MAX_SLICES', 24, 1, 1_000_000),
    taskMaxDurationMs: readInt(env, 'TASK_MAX_DURATION_MS', 3_600_000, 1000),
    maxConsecutiveErrors: readInt(env, 'MAX_CONSECUTIVE_ERRORS', 3, 1, 1000),
    loopRepeatLimit: readInt(env, 'LOOP_REPEAT_LIMIT', 5, 2, 10_000),
    loopIdleCalls: readInt(env, 'LOOP_IDLE_CALLS', 20, 2, 100_000),
    firstModel: readModel(env, 'FIRST_MODEL', 'opus'),
    retryPolicy: parseRetryPolicy(readList(env, 'RETRY_POLICY', ['opus', 'gemini', 'opus', 'gemini'])),
    modelCallTimeoutMs: readInt(env, 'MODEL_CALL_TIMEOUT_MS', 120_000, 10),
    toolCallTimeoutMs: readInt(env, 'TOOL_CALL_TIMEOUT_MS', 120_000, 10),
    drainTimeoutMs: readInt(env, 'DRAIN_TIMEOUT_MS', 30_000, 0),
    humanWaitTimeoutMs: readInt(env, 'HUMAN_WAIT_TIMEOUT_MS', 86_400_000, 10),
    // Never looked for less often than the sweep runs: compressed timings compress this too.
    livenessIntervalMs: readInt(
      env,
      'LIVENESS_INTERVAL_MS',
      Math.min(250, readInt(env, 'WATCHER_INTERVAL_MS', 60_000, 10)),
      10,
    ),
    taskBudgetUsd: readNumber(env, 'TASK_BUDGET_USD', 3, 0)!,
    globalSpendLimitUsd: readNumber(env, 'GLOBAL_SPEND_LIMIT_USD', undefined, 0),
    workerConcurrency: readInt(env, 'WORKER_CONCURRENCY', 16, 1, 10_000),
    eventStreamMaxLen: readInt(env, 'EVENT_STREAM_MAXLEN', 100_000, 100),
    anthropicApiKey: readOptional(env, 'ANTHROPIC_API_KEY'),
    anthropicBaseUrl: readUrl(env, 'ANTHROPIC_BASE_URL', undefined, ['http:', 'https:']),
    anthropicModel: readString(env, 'ANTHROPIC_MODEL', 'claude-opus-4-1'),
    geminiApiKey: readOptional(env, 'GEMINI_API_KEY'),
    geminiBaseUrl: readUrl(env, 'GEMINI_BASE_URL', undefined, ['http:', 'https:']),
    geminiModel: readString(env, 'GEMINI_MODEL', 'gemini-2.5-pro'),
    metaApiBaseUrl: readUrl(env, 'META_API_BASE_URL', 'http://127.0.0.1:4010/v21.0', ['http:', 'https:'])!,
    metaAccessToken: readOptional(env, 'META_ACCESS_TOKEN'),
    apiKeys: parseApiKeys(apiKeysRaw ?? DEFAULT_API_KEYS),
    developmentDefaults: [
      ...(apiKeysRaw === undefined ? ['API_KEYS'] : []),
      ...(webhookSecretRaw === undefined ? ['WEBHOOK_SECRET'] : []),
    ],
    adminPassword: readOptional(env, 'ADMIN_PASSWORD'),
    webhookSecret: webhookSecretRaw ?? 'local-dev-webhook-secret',
    webhookAllowPrivate: readBool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookDefaultUrl: readUrl(env, 'WEBHOOK_DEFAULT_URL', undefined, ['http:', 'https:']),
    webhookMaxAttempts: readInt(env, 'WEBHOOK_MAX_ATTEMPTS', 12, 1, 100),
    webhookBackoffMs: readInt(env, 'WEBHOOK_BACKOFF_MS', 1_000, 10, 3_600_000),
    webhookTimeoutMs: readInt(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookConcurrency: readInt(env, 'WEBHOOK_CONCURRENCY', 16, 1, 1_000),
    notifierClaimIdleMs: readInt(env, 'NOTIFIER_CLAIM_IDLE_MS', 30_000, 100),
    sseHeartbeatMs: readInt(env, 'SSE_HEARTBEAT_MS', 15_000, 100, 600_000),
    rateLimitPerMinute: readInt(env, 'RATE_LIMIT_PER_MINUTE', 120, 1, 1_000_000),
    maxActiveTasksPerTenant: readOptionalInt(env, 'MAX_ACTIVE_TASKS_PER_TENANT', 1, 10_000_000),
    maxSseStreamsPerKey: readInt(env, 'MAX_SSE_STREAMS_PER_KEY', 10, 1, 100_000),
    schedulesPerTenant: readInt(env, 'SCHEDULES_PER_TENANT', 100, 1, 100_000),
    scheduleMinIntervalMs: readInt(env, 'SCHEDULE_MIN_INTERVAL_MS', 60_000, 1_000, 31 * 86_400_000),
    metricsToken: readOptional(env, 'METRICS_TOKEN'),
    toolsCatalogPath: readOptional(env, 'VIGIL_TOOLS'),
    toolCatalog: loadToolCatalog(env),
    toolsAllowPrivate: readBool(env, 'TOOLS_ALLOW_PRIVATE', false),
    kindModules: readList(env, 'VIGIL_KINDS', []),
    maxParallelChildren: readInt(env, 'MAX_PARALLEL_CHILDREN', 3, 1, 1000),
    tenantSlotRetryMs: readInt(env, 'TENANT_SLOT_RETRY_MS', 10_000, 10, 3_600_000),
    tenantFairShare: readBool(env, 'TENANT_FAIR_SHARE', true),
    visionMaxImages: readInt(env, 'VISION_MAX_IMAGES', 3, 0, 20),
    routerModel: readOptional(env, 'ROUTER_MODEL'),
    publicBaseUrl: (
      readUrl(env, 'PUBLIC_BASE_URL', undefined, ['http:', 'https:']) ??
      `http://localhost:${readInt(env, 'PORT', 3000, 0, 65535)}`
    ).replace(/\/+$/, ''),
    taskRetentionMs: readInt(env, 'TASK_RETENTION_MS', 604_800_000, 0),
    failedTaskRetentionMs: readInt(env, 'FAILED_TASK_RETENTION_MS', 2_592_000_000, 0),
    archive: readBool(env, 'ARCHIVE', true),
    objectStoreUrl: readObjectStoreUrl(env),
    s3Endpoint: readUrl(env, 'S3_ENDPOINT', undefined, ['http:', 'https:']),
    s3ForcePathStyle: readBool(env, 'S3_FORCE_PATH_STYLE', false),
    maxInlineOutputBytes: readInt(env, 'MAX_INLINE_OUTPUT_BYTES', 65_536, 1024, 64 * 1024 * 1024),
    maxArtifactBytes: readInt(env, 'MAX_ARTIFACT_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    archiveBatchSize: readInt(env, 'ARCHIVE_BATCH_SIZE', 50, 1, 10_000),
    archiveBusyLagMs: readInt(env, 'ARCHIVE_BUSY_LAG_MS', 60_000, 0, 86_400_000),
    finishedJobRetentionMs: readInt(env, 'FINISHED_JOB_RETENTION_MS', 3_600_000, 1000, 30 * 86_400_000),
    logLevel: readString(env, 'LOG_LEVEL', 'info'),
    logFormat: readLogFormat(env),
    ...readOtel(env),
  };
}
