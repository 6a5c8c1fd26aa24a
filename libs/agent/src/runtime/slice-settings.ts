import { settingsProvider, type Settings } from '@vigil/config';

/**
 * What a Worker's slices read of the config: the heartbeat and call deadlines, the step and slice
 * caps, and whether each model's key is set (which provider runs a model name).
 * Fields of three sections, so SliceServices injects this composite instead of the whole config.
 */
export const SLICE_SETTING_FIELDS = [
  'heartbeatIntervalMs',
  'toolCallTimeoutMs',
  'modelCallTimeoutMs',
  'sliceMaxSteps',
  'maxConsecutiveErrors',
  'loopRepeatLimit',
  'loopIdleCalls',
  'taskMaxSlices',
  'workerConcurrency',
  'visionMaxImages',
  'anthropicApiKey',
  'geminiApiKey',
] as const;

export type SliceSettings = Settings<(typeof SLICE_SETTING_FIELDS)[number]>;

export const SLICE_SETTINGS = Symbol('SLICE_SETTINGS');

/** Built from CLOCKS_CONFIG, LIMITS_CONFIG and MODELS_CONFIG (libs/config, config-sections.ts). */
export const sliceSettingsProvider = settingsProvider(SLICE_SETTINGS, SLICE_SETTING_FIELDS);
