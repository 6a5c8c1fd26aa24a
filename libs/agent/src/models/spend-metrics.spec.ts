import { Registry } from 'prom-client';
import { DrainMetrics } from '../runtime/drain-metrics';
import { SpendMetrics } from './spend-metrics';

type Sample = { value: number; labels: Record<string, string>; metricName?: string };

/** A sample by its series name (`<histogram>_sum` included) and labels. */
const value = async (registry: Registry, name: string, labels: Record<string, string>) =>
  (await registry.getMetricsAsJSON())
    .flatMap((metric) =>
      (metric.values as Sample[]).map((sample) => ({ name: sample.metricName ?? metric.name, ...sample })),
    )
    .find(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, label]) => sample.labels[key] === label),
    )?.value;

describe('worker money and drain metrics', () => {
  it('counts spend, calls and tokens by provider and model, once per registry', async () => {
    const registry = new Registry();
    const metrics = new SpendMetrics(registry);
    metrics.record(
      'anthropic',
      'claude-opus-4-1',
      { inputTokens: 100, outputTokens: 20, cacheReadTokens: 2_000 },
      0.25,
    );
    // A second instance on the same registry adds to the same counters.
    new SpendMetrics(registry).record(
      'anthropic',
      'claude-opus-4-1',
      { inputTokens: 50, outputTokens: 5 },
      0.05,
    );
    new SpendMetrics(registry).record('scripted', 'scripted', { inputTokens: 0, outputTokens: 0 }, 0);
    const opus = { provider: 'anthropic', model: 'claude-opus-4-1' };
    expect(await value(registry, 'vigil_model_spend_usd_total', opus)).toBeCloseTo(0.3);
    expect(await value(registry, 'vigil_model_calls_total', opus)).toBe(2);
    expect(await value(registry, 'vigil_model_tokens_total', { ...opus, type: 'input' })).toBe(150);
    expect(await value(registry, 'vigil_model_tokens_total', { ...opus, type: 'cache_read' })).toBe(2_000);
    expect(
      await value(registry, 'vigil_model_tokens_total', { ...opus, type: 'cache_write' }),
    ).toBeUndefined();
    expect(await value(registry, 'vigil_model_calls_total', { provider: 'scripted' })).toBe(1);
    expect(await value(registry, 'vigil_model_spend_usd_total', { provider: 'scripted' })).toBeUndefined();
  });

  it('observes drains in seconds by outcome', async () => {
    const registry = new Registry();
    new DrainMetrics(registry).observe(1_500, 'drained');
    new DrainMetrics(registry).observe(30_000, 'deadline');
    expect(await value(registry, 'vigil_drain_duration_seconds_sum', { outcome: 'drained' })).toBe(1.5);
    expect(await value(registry, 'vigil_drain_duration_seconds_count', { outcome: 'deadline' })).toBe(1);
  });
});
