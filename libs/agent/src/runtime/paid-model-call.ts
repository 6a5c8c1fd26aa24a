import { providerOf, type VigilConfig } from '@vigil/config';
import { VIGIL, type TraceSpan } from '@vigil/telemetry';
import type { GenerateRequest, GenerateResult, ModelProvider } from '../models/model-provider';
import { estimateCostUsd, priceOf, worstCasePrice, type Price } from '../models/price-table';
import type { SpendMetrics } from '../models/spend-metrics';
import { recordModelReply, startModelCallSpan, type ModelCallTrace } from './call-spans';
import type { CallsInFlight } from './calls-in-flight';
import { GlobalSpendLimitError, TenantDailyBudgetError } from './global-spend.gate';
import { abandonReasonOf, type LiveCalls } from './live-model-output';
import { BudgetExhaustedError, type ModelSpend } from './model-spend';

/** The model's answer, with what it cost when it cost anything (a free driver's has no cost fields). */
export interface ModelReply extends GenerateResult {
  costUsd?: number;
  reservedUsd?: number;
}

/** A model call that failed after its reservation: the step records the charge. */
export class ChargedModelError extends Error {
  constructor(
    readonly original: unknown,
    readonly charge: { costUsd: number; reservedUsd: number },
  ) {
    super(String(original));
  }
}

/** How a slice ends when the next model call cannot be paid for. */
export interface MoneyPause {
  end: 'paused';
  pauseReason: MoneyPauseReason;
  detail: string;
}

export type MoneyPauseReason = 'budget' | 'global_spend_limit' | 'tenant_daily_budget';

/** The pause a refused reservation means (the task's budget or the global cap), if it is one. */
export function moneyPauseOf(error: unknown): MoneyPause | undefined {
  if (error instanceof BudgetExhaustedError)
    return { end: 'paused', pauseReason: 'budget', detail: error.message };
  if (error instanceof GlobalSpendLimitError)
    return { end: 'paused', pauseReason: 'global_spend_limit', detail: error.message };
  if (error instanceof TenantDailyBudgetError)
    return { end: 'paused', pauseReason: 'tenant_daily_budget', detail: error.message };
  return undefined;
}

/**
 * One slice's model calls, each paid for before it is made (docs/models.md, "Money"): its worst
 * case is reserved against the task's budget and the global cap, the call lowers its max_tokens to
 * fit what is left, and the reservation is settled to the real cost with the step. A call that
 * cannot be paid for throws what `moneyPauseOf` maps to a pause; a free provider (the scripted
 * agent) reserves nothing and costs no round trip.
 */
export class PaidModelCall {
  /** The provider's prices, looked up once per slice. */
  private price?: Price;
  /** Who runs this attempt (`anthropic`, `google`, `scripted`): the record's `provider`. */
  private readonly providerName: string;
  private readonly timeoutMs: number;

  constructor(
    readonly provider: ModelProvider,
    private readonly money: Pick<ModelSpend, 'reserve' | 'settleGlobal'>,
    config: Pick<VigilConfig, 'modelCallTimeoutMs' | 'anthropicApiKey' | 'geminiApiKey'>,
    /** Spend and tokens by provider and model, on the Worker's /metrics. */
    private readonly spendMetrics?: Pick<SpendMetrics, 'record'>,
    /** Each call is a span under the slice's (docs/observability.md, "Spans and attributes"). */
    private readonly trace?: ModelCallTrace,
    /** Where the model's text goes as it streams (docs/api.md, "Live model output"). */
    private readonly live?: LiveCalls,
  ) {
    this.providerName = providerOf(provider.name, config);
    this.timeoutMs = config.modelCallTimeoutMs;
  }

  /**
   * Not itself async on the common paths (no trace; a free driver): the call's own promise is
   * handed back, without a promise and its microtask hops per layer on every step.
   */
  generate(request: GenerateRequest, calls: CallsInFlight): Promise<ModelReply> {
    if (!this.trace) return this.paid(request, calls);
    return this.traced(this.trace, request, calls);
  }

  private async traced(
    trace: ModelCallTrace,
    request: GenerateRequest,
    calls: CallsInFlight,
  ): Promise<ModelReply> {
    const { provider } = this;
    const who = { provider: this.providerName, modelId: provider.modelId, policyName: provider.name };
    const span = startModelCallSpan(trace, who, request);
    try {
      const reply = await this.paid(request, calls, span);
      recordModelReply(trace, span, request, reply, {
        costUsd: reply.costUsd ?? 0,
        reservedUsd: reply.reservedUsd ?? 0,
      });
      return reply;
    } catch (error) {
      // A failed call that was billed shows what it was charged: the spans' costs add up to spentUsd.
      if (error instanceof ChargedModelError)
        span.set({ [VIGIL.costUsd]: error.charge.costUsd, [VIGIL.reservedUsd]: error.charge.reservedUsd });
      span.fail(
        error instanceof ChargedModelError ? error.original : error,
        moneyPauseOf(error)?.pauseReason,
      );
      throw error;
    } finally {
      span.end();
    }
  }

  private paid(request: GenerateRequest, calls: CallsInFlight, span?: TraceSpan): Promise<ModelReply> {
    const price = (this.price ??= priceOf(this.provider.modelId));
    // A free driver (the scripted agent): nothing to reserve, settle or count as spend.
    if (price.input === 0 && price.output === 0) return this.call(request, calls);
    return this.reserved(request, calls, price, span);
  }

  private async reserved(
    request: GenerateRequest,
    calls: CallsInFlight,
    price: Price,
    span?: TraceSpan,
  ): Promise<ModelReply> {
    const { provider } = this;
    // Every prompt token at the dearest input rate: a cache write costs more than plain input.
    const grant = await this.money.reserve(request, worstCasePrice(price));
    request.maxTokens = grant.maxTokens;
    span?.event('vigil.reserved', { [VIGIL.reservedUsd]: grant.grantedUsd });
    let reply: GenerateResult;
    try {
      reply = await this.call(request, calls);
    } catch (error) {
      // A call that failed or was aborted may still be billed: it is charged its whole reservation.
      await this.money.settleGlobal(grant, grant.grantedUsd);
      throw new ChargedModelError(error, { costUsd: grant.grantedUsd, reservedUsd: grant.grantedUsd });
    }
    const costUsd = estimateCostUsd(provider, reply.usage);
    this.spendMetrics?.record(this.providerName, provider.modelId, reply.usage, costUsd);
    await this.money.settleGlobal(grant, costUsd);
    return {
      text: reply.text,
      toolCalls: reply.toolCalls,
      usage: reply.usage,
      costUsd,
      reservedUsd: grant.grantedUsd,
    };
  }

  private async call(request: GenerateRequest, calls: CallsInFlight): Promise<GenerateResult> {
    const watched = calls.begin('model', this.provider.name, this.timeoutMs);
    const output = this.live?.open();
    if (output) request.onText = output.text;
    try {
      const reply = await this.provider.generate(request);
      output?.end();
      return reply;
    } catch (error) {
      // Cut off by a stop, a recovery or its deadline (the slice's abort), or failed.
      output?.abandon(abandonReasonOf(request.signal.aborted ? request.signal.reason : error));
      throw error;
    } finally {
      calls.end(watched);
    }
  }
}
