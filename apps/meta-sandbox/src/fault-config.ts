import { FAULT_KINDS, type FailNextRule, type FaultConfig } from './types';

function probability(value: unknown, name: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1))
    throw new Error(`${name} must be a number in [0, 1]`);
}

function nonNegativeInt(value: unknown, name: string): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer`);
  }
}

/** Validates a fault config (it may come from JSON over the admin route) and returns a copy. */
export function validateFaultConfig(input: unknown): FaultConfig {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new Error('faults must be an object');
  const config = input as FaultConfig;
  probability(config.hangProbability, 'hangProbability');
  probability(config.transient500Probability, 'transient500Probability');
  probability(config.commitThenDropProbability, 'commitThenDropProbability');
  if (config.latencyMs !== undefined) {
    nonNegativeInt(config.latencyMs?.min, 'latencyMs.min');
    nonNegativeInt(config.latencyMs?.max, 'latencyMs.max');
    if (config.latencyMs.min > config.latencyMs.max)
      throw new Error('latencyMs.min must be <= latencyMs.max');
  }
  if (config.rateLimit !== undefined) {
    nonNegativeInt(config.rateLimit?.every, 'rateLimit.every');
    nonNegativeInt(config.rateLimit.burst, 'rateLimit.burst');
    if (config.rateLimit.every < 1) throw new Error('rateLimit.every must be >= 1');
    const codes = config.rateLimit.codes;
    if (
      codes !== undefined &&
      (!Array.isArray(codes) || codes.length === 0 || !codes.every(Number.isInteger))
    ) {
      throw new Error('rateLimit.codes must be a non-empty array of error codes');
    }
    if (config.rateLimit.regainAccessMinutes !== undefined) {
      nonNegativeInt(config.rateLimit.regainAccessMinutes, 'rateLimit.regainAccessMinutes');
    }
  }
  if (config.failNext !== undefined) {
    if (!Array.isArray(config.failNext)) throw new Error('failNext must be an array');
    config.failNext.forEach((rule: FailNextRule, i) => {
      if (!FAULT_KINDS.includes(rule?.kind))
        throw new Error(`failNext[${i}].kind must be one of ${FAULT_KINDS.join(', ')}`);
      if (!(rule.path instanceof RegExp)) {
        if (typeof rule.path !== 'string') throw new Error(`failNext[${i}].path must be a regex string`);
        new RegExp(rule.path);
      }
      if (rule.times !== undefined) nonNegativeInt(rule.times, `failNext[${i}].times`);
    });
  }
  return {
    ...config,
    failNext: config.failNext?.map((rule) => ({ ...rule })),
  };
}

/** JSON-safe view of a config (regexes as their source). */
export function serializeFaultConfig(config: FaultConfig): unknown {
  return {
    ...config,
    failNext: config.failNext?.map((rule) => ({
      ...rule,
      path: rule.path instanceof RegExp ? rule.path.source : rule.path,
    })),
  };
}
