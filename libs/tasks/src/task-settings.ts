import { settingsProvider, type Settings } from '@vigil/config';

/**
 * What the task stores write beside a task: its clocks (stale deadline, duration cap, next user
 * update, human wait, progress events) and the caps their scripts enforce (event stream length, parallel children), and how long a
 * running place outlives its last ask (tenantSlotRetryMs).
 * Two sections' fields, so the stores inject this composite rather than the clocks and limits whole.
 */
export const TASK_SETTING_FIELDS = [
  'staleAfterMs',
  'taskMaxDurationMs',
  'userUpdateIntervalMs',
  'progressEventIntervalMs',
  'humanWaitTimeoutMs',
  'eventStreamMaxLen',
  'maxParallelChildren',
  'tenantSlotRetryMs',
] as const;

export type TaskSettings = Settings<(typeof TASK_SETTING_FIELDS)[number]>;

export const TASK_SETTINGS = Symbol('TASK_SETTINGS');

/** Built from CLOCKS_CONFIG and LIMITS_CONFIG (libs/config, config-sections.ts). */
export const taskSettingsProvider = settingsProvider(TASK_SETTINGS, TASK_SETTING_FIELDS);
