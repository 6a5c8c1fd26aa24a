import type { SpendLedger } from '@vigil/tasks';
import { imageTokenBound } from '../models/model-image';
import type { GenerateRequest, ModelImage } from '../models/model-provider';
import type { Price } from '../models/price-table';
import { MAX_OUTPUT_TOKENS } from '../models/provider-support';
import type { GlobalSpendGate, SharedHold } from './global-spend.gate';

/**
 * The fewest output tokens a call is made with when the budget is nearly spent: below this a
 * model cannot answer with a tool call and its arguments, and the call would be money lost.
 */
export const MIN_OUTPUT_TOKENS = 1024;

/** Not even a call with MIN_OUTPUT_TOKENS fits in what is left of the task's budget. */
export class BudgetExhaustedError extends Error {
  constructor(
    readonly budgetUsd: number,
    readonly remainingUsd: number,
  ) {
    super(
      `the task's budget of $${budgetUsd} is nearly spent: $${remainingUsd.toFixed(4)} left, less than one more model call may cost`,
    );
    this.name = 'BudgetExhaustedError';
  }
}

export interface Grant {
  grantedUsd: number;
  maxTokens: number;
  /** Held against the global cap and the tenant's daily budget, when either applies. */
  shared?: SharedHold;
}

/**
 * An upper bound of a prompt's tokens: its UTF-8 bytes (a token of the providers' byte-level
 * tokenizers is at least one byte), each image's documented token cost, plus a few tokens per
 * message for roles and boundaries. An
 * estimate below the truth could let a call cost more than it reserved; this one cannot.
 */
export function promptTokenBound(request: Pick<GenerateRequest, 'system' | 'messages' | 'tools'>): number {
  // An image is billed by its pixels, not its bytes (model-image.ts, imageTokenBound): its base64
  // is left out of the byte count and its pixel bound added.
  let imageTokens = 0;
  const messages = JSON.stringify(request.messages, (key, value: unknown) => {
    if (key !== 'images' || !Array.isArray(value)) return value;
    for (const image of value as ModelImage[]) imageTokens += imageTokenBound(image.width, image.height);
    return undefined;
  });
  const bytes =
    Buffer.byteLength(request.system) +
    Buffer.byteLength(messages) +
    Buffer.byteLength(JSON.stringify(request.tools));
  return bytes + imageTokens + 16 * (request.messages.length + 1) + 64;
}

/**
 * Pays for one slice's model calls before they are made: the task's budget, then the global cap and
 * the tenant's daily budget together.
 */
export class ModelSpend {
  constructor(
    private readonly ledger: SpendLedger,
    private readonly global: GlobalSpendGate,
    private readonly task: { id: string; attempt: number; budgetUsd: number; tenantId?: string },
  ) {}

  async reserve(
    request: Pick<GenerateRequest, 'system' | 'messages' | 'tools'>,
    price: Price,
  ): Promise<Grant> {
    const inputUsd = (promptTokenBound(request) * price.input) / 1_000_000;
    const outputUsd = (tokens: number) => (tokens * price.output) / 1_000_000;
    const worstUsd = inputUsd + outputUsd(MAX_OUTPUT_TOKENS);
    const reply = await this.ledger.reserveTask(
      this.task.id,
      this.task.attempt,
      worstUsd,
      inputUsd + outputUsd(MIN_OUTPUT_TOKENS),
    );
    if ('refused' in reply) throw new BudgetExhaustedError(this.task.budgetUsd, reply.remainingUsd);
    // The ledger keeps micro-dollars: a grant within one of the worst case is the whole of it.
    const maxTokens =
      reply.grantedUsd >= worstUsd - 1e-6
        ? MAX_OUTPUT_TOKENS
        : Math.floor(((reply.grantedUsd - inputUsd) * 1_000_000) / Math.max(price.output, 1e-9));
    let shared: SharedHold | undefined;
    try {
      shared = await this.global.reserve(reply.grantedUsd, this.task.tenantId);
    } catch (error) {
      await this.ledger.releaseTask(this.task.id, this.task.attempt, reply.grantedUsd);
      throw error;
    }
    return {
      grantedUsd: reply.grantedUsd,
      maxTokens: Math.max(MIN_OUTPUT_TOKENS, maxTokens),
      ...(shared ? { shared } : {}),
    };
  }

  /**
   * The global cap and the tenant's day keep the real cost; the task's grant is released by the
   * step that records it.
   */
  settleGlobal(grant: Grant, actualUsd: number): Promise<void> {
    return this.global.settle(grant.shared, grant.grantedUsd, actualUsd);
  }
}
