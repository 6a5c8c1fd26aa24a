import type { VigilConfig } from './config';

/**
 * The fields of each section. Every field of VigilConfig is in exactly one (checked below at compile
 * time and by config-sections.spec.ts), so a consumer handed one section cannot read a secret of
 * another: the section is a frozen copy of its own fields, not a view of the whole object.
 */
export const SECTION_FIELDS = {
  redis: ['redisUrl', 'redisClusterNodes', 'redlockUrls', 'keyPrefix', 'shards'],
  clocks: [
    'heartbeatIntervalMs',
    'watcherIntervalMs',
    'staleAfterMs',
    'userUpdateIntervalMs',
    'progressEventIntervalMs',
    'livenessIntervalMs',
    'modelCallTimeoutMs',
    'toolCallTimeoutMs',
    'drainTimeoutMs',
    'humanWaitTimeoutMs',
    'sseHeartbeatMs',
  ],
  limits: [
    'sliceMaxSteps',
    'taskMaxSlices',
    'taskMaxDurationMs',
    'maxConsecutiveErrors',
    'loopRepeatLimit',
    'loopIdleCalls',
    'taskBudgetUsd',
    'globalSpendLimitUsd',
    'workerConcurrency',
    'eventStreamMaxLen',
    'rateLimitPerMinute',
    'maxActiveTasksPerTenant',
    'maxSseStreamsPerKey',
    'maxParallelChildren',
    'tenantSlotRetryMs',
    'tenantFairShare',
    'visionMaxImages',
  ],
  models: [
    'firstModel',
    'retryPolicy',
    'anthropicApiKey',
    'anthropicBaseUrl',
    'anthropicModel',
    'geminiApiKey',
    'geminiBaseUrl',
    'geminiModel',
    'routerModel',
  ],
  webhooks: [
    'webhookSecret',
    'webhookAllowPrivate',
    'webhookDefaultUrl',
    'webhookMaxAttempts',
    'webhookBackoffMs',
    'webhookTimeoutMs',
    'webhookConcurrency',
    'notifierClaimIdleMs',
  ],
  admin: ['adminPassword', 'apiKeys', 'metricsToken', 'developmentDefaults'],
  tools: ['toolsCatalogPath', 'toolCatalog', 'toolsAllowPrivate'],
  kinds: ['kindModules', 'metaApiBaseUrl', 'metaAccessToken'],
  storage: [
    'taskRetentionMs',
    'failedTaskRetentionMs',
    'archive',
    'objectStoreUrl',
    's3Endpoint',
    's3ForcePathStyle',
    'maxInlineOutputBytes',
    'maxArtifactBytes',
    'archiveBatchSize',
    'archiveBusyLagMs',
    'finishedJobRetentionMs',
  ],
  schedules: ['schedulesPerTenant', 'scheduleMinIntervalMs'],
  telemetry: ['otelEndpoint', 'otelProtocol', 'otelServiceName', 'otelCaptureContent'],
  server: ['port', 'workerPort', 'watcherPort', 'notifierPort', 'publicBaseUrl', 'logLevel', 'logFormat'],
} as const satisfies Record<string, readonly (keyof VigilConfig)[]>;

export type SectionName = keyof typeof SECTION_FIELDS;

type Section<Name extends SectionName> = Readonly<Pick<VigilConfig, (typeof SECTION_FIELDS)[Name][number]>>;

/** Where Redis is and how keys are named. */
export type RedisConfig = Section<'redis'>;
/** Intervals, deadlines and timeouts. */
export type ClockConfig = Section<'clocks'>;
/** Caps on work, money and connections. */
export type LimitsConfig = Section<'limits'>;
/** The retry policy and the model providers, with their keys. */
export type ModelsConfig = Section<'models'>;
/** Webhook signing and delivery, and the notifier's stream claims. */
export type WebhookConfig = Section<'webhooks'>;
/** Who may call the API, the admin pages and /metrics. */
export type AdminConfig = Section<'admin'>;
/** The operator's tool catalog and what its tools may reach. */
export type ToolsConfig = Section<'tools'>;
/** Code kinds loaded at boot and the settings of the built-in kinds. */
export type KindsConfig = Section<'kinds'>;
/** Retention, archives and the object store. */
export type StorageConfig = Section<'storage'>;
/** How many schedules a tenant may hold and how often they may fire (docs/schedules.md, "Bounds"). */
export type SchedulesConfig = Section<'schedules'>;
/** Traces: where they go and whether content is recorded (docs/observability.md). */
export type TelemetryConfig = Section<'telemetry'>;
/** Ports, the public base of links, logging. */
export type ServerConfig = Section<'server'>;

export type ConfigSections = { readonly [Name in SectionName]: Section<Name> };

// Fails to compile when a field of VigilConfig is in no section.
type Unsectioned = Exclude<keyof VigilConfig, (typeof SECTION_FIELDS)[SectionName][number]>;
const everyFieldHasASection: [Unsectioned] extends [never] ? true : Unsectioned = true;
void everyFieldHasASection;

/** Injection tokens of the sections, provided beside VIGIL_CONFIG by PlatformModule.forRoot. */
export const REDIS_CONFIG = Symbol('REDIS_CONFIG');
export const CLOCKS_CONFIG = Symbol('CLOCKS_CONFIG');
export const LIMITS_CONFIG = Symbol('LIMITS_CONFIG');
export const MODELS_CONFIG = Symbol('MODELS_CONFIG');
export const WEBHOOKS_CONFIG = Symbol('WEBHOOKS_CONFIG');
export const ADMIN_CONFIG = Symbol('ADMIN_CONFIG');
export const TOOLS_CONFIG = Symbol('TOOLS_CONFIG');
export const KINDS_CONFIG = Symbol('KINDS_CONFIG');
export const STORAGE_CONFIG = Symbol('STORAGE_CONFIG');
export const SCHEDULES_CONFIG = Symbol('SCHEDULES_CONFIG');
export const TELEMETRY_CONFIG = Symbol('TELEMETRY_CONFIG');
export const SERVER_CONFIG = Symbol('SERVER_CONFIG');

export const SECTION_TOKENS: { readonly [Name in SectionName]: symbol } = {
  redis: REDIS_CONFIG,
  clocks: CLOCKS_CONFIG,
  limits: LIMITS_CONFIG,
  models: MODELS_CONFIG,
  webhooks: WEBHOOKS_CONFIG,
  admin: ADMIN_CONFIG,
  tools: TOOLS_CONFIG,
  kinds: KINDS_CONFIG,
  storage: STORAGE_CONFIG,
  schedules: SCHEDULES_CONFIG,
  telemetry: TELEMETRY_CONFIG,
  server: SERVER_CONFIG,
};

const built = new WeakMap<VigilConfig, ConfigSections>();

/** The sections of a validated config, each a frozen copy of its own fields (built once per config). */
export function sectionsOf(config: VigilConfig): ConfigSections {
  let sections = built.get(config);
  if (!sections) {
    const entries = Object.entries(SECTION_FIELDS).map(([name, fields]) => [
      name,
      Object.freeze(Object.fromEntries(fields.map((field) => [field, config[field]]))),
    ]);
    sections = Object.freeze(Object.fromEntries(entries)) as ConfigSections;
    built.set(config, sections);
  }
  return sections;
}

/** Nest value providers of every section token (plain objects: this library does not depend on Nest). */
export function sectionProviders(config: VigilConfig): { provide: symbol; useValue: unknown }[] {
  const sections = sectionsOf(config);
  return (Object.keys(SECTION_TOKENS) as SectionName[]).map((name) => ({
    provide: SECTION_TOKENS[name],
    useValue: sections[name],
  }));
}

/** The section each field of VigilConfig is in. */
const SECTION_OF = Object.fromEntries(
  Object.entries(SECTION_FIELDS).flatMap(([name, fields]) => fields.map((field) => [field, name])),
) as Record<keyof VigilConfig, SectionName>;

/**
 * A few named fields of several sections: what a service that reads many fields across sections
 * injects (as one small named composite) instead of each section whole or the config itself.
 */
export type Settings<Field extends keyof VigilConfig> = Readonly<Pick<VigilConfig, Field>>;

/** A frozen copy of `fields`, read from the given sections (or anything holding them, a config in tests). */
export function settingsOf<Field extends keyof VigilConfig>(
  fields: readonly Field[],
  ...sources: readonly Partial<VigilConfig>[]
): Settings<Field> {
  const merged: Partial<VigilConfig> = Object.assign({}, ...sources);
  const missing = fields.filter((field) => !(field in merged));
  if (missing.length > 0) throw new Error(`settings: no section given holds ${missing.join(', ')}`);
  return Object.freeze(Object.fromEntries(fields.map((field) => [field, merged[field]]))) as Settings<Field>;
}

/**
 * A Nest factory provider of `token`: `fields` read from the sections they live in, injected by
 * their section tokens, so the composite never sees a field it does not name.
 */
export function settingsProvider<Field extends keyof VigilConfig>(
  token: symbol,
  fields: readonly Field[],
): {
  provide: symbol;
  inject: symbol[];
  useFactory: (...sections: Partial<VigilConfig>[]) => Settings<Field>;
} {
  const names = [...new Set(fields.map((field) => SECTION_OF[field]))];
  return {
    provide: token,
    inject: names.map((name) => SECTION_TOKENS[name]),
    useFactory: (...sections) => settingsOf(fields, ...sections),
  };
}
