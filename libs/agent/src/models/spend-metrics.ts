import { Inject, Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@vigil/platform';
import type { Usage } from './model-provider';

type Labels = 'provider' | 'model';

/** A counter of this registry, created once however many times it is asked for. */
function counter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: L[],
): Counter<L> {
  return (
    (registry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter({ name, help, labelNames, registers: [registry] })
  );
}

/**
 * What the Worker's model calls cost, by provider (`anthropic`, `google`, `scripted`) and model id
 * (docs/operations.md, "Metrics"): dollars from the price table, tokens by type as the
 * provider reported them. Counted once per settled call, beside the spend ledger, never instead of it.
 */
@Injectable()
export class SpendMetrics {
  private readonly spend: Counter<Labels>;
  private readonly tokens: Counter<Labels | 'type'>;
  private readonly calls: Counter<Labels>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.spend = counter(registry, 'vigil_model_spend_usd_total', 'Estimated USD spent on model calls', [
      'provider',
      'model',
    ]);
    this.tokens = counter(
      registry,
      'vigil_model_tokens_total',
      'Model tokens by type: input, output, cache_read, cache_write',
      ['provider', 'model', 'type'],
    );
    this.calls = counter(registry, 'vigil_model_calls_total', 'Model calls that returned', [
      'provider',
      'model',
    ]);
  }

  /** One returned call: its usage and what it cost (estimateCostUsd). */
  record(provider: string, model: string, usage: Usage, costUsd: number): void {
    const labels = { provider, model };
    this.calls.inc(labels);
    if (costUsd > 0) this.spend.inc(labels, costUsd);
    const byType: [string, number | undefined][] = [
      ['input', usage.inputTokens],
      ['output', usage.outputTokens],
      ['cache_read', usage.cacheReadTokens],
      ['cache_write', usage.cacheWriteTokens],
    ];
    for (const [type, count] of byType) if (count) this.tokens.inc({ ...labels, type }, count);
  }
}
