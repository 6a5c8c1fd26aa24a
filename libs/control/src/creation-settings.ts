import { settingsProvider, type Settings } from '@vigil/config';

/**
 * What creating a task reads of the config: the defaults a request may leave out (first model,
 * retry policy, budget), the tenant's cap on active tasks, and whether a webhook may target a
 * private address. Fields of three sections; never the model keys or the webhook secret beside them.
 */
export const CREATION_SETTING_FIELDS = [
  'firstModel',
  'retryPolicy',
  'taskBudgetUsd',
  'maxActiveTasksPerTenant',
  'webhookAllowPrivate',
] as const;

export type CreationSettings = Settings<(typeof CREATION_SETTING_FIELDS)[number]>;

export const CREATION_SETTINGS = Symbol('CREATION_SETTINGS');

/** Built from MODELS_CONFIG, LIMITS_CONFIG and WEBHOOKS_CONFIG (libs/config, config-sections.ts). */
export const creationSettingsProvider = settingsProvider(CREATION_SETTINGS, CREATION_SETTING_FIELDS);
