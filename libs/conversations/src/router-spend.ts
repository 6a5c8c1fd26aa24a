import { estimateCostUsd, type GlobalSpendGate, type Usage, worstCaseCallCostUsd } from '@vigil/agent';

/**
 * Who pays for a conversation's model calls (the router's and the tools loop's): the tenant's
 * daily budget and the global cap, reserved before each call and settled to its usage after it
 * (docs/operations.md, "Tenant limits"). A refused reservation throws: the router falls back to
 * its rules, the tools loop to its one deterministic read.
 */
export interface RouterSpend {
  pay<T>(
    modelId: string,
    promptTokens: number,
    maxOutputTokens: number,
    call: () => Promise<{ value: T; usage: Usage }>,
  ): Promise<T>;
}

/** An upper bound of a short prompt's tokens: its UTF-8 bytes, plus room for roles and boundaries. */
export function promptBytesBound(...parts: unknown[]): number {
  const bytes = parts.reduce<number>(
    (sum, part) => sum + Buffer.byteLength(typeof part === 'string' ? part : JSON.stringify(part)),
    0,
  );
  return bytes + 16 * parts.length + 64;
}

/** A tenant's conversation calls, paid through the same shared-limits script as its tasks' calls. */
export class TenantRouterSpend implements RouterSpend {
  constructor(
    private readonly gate: Pick<GlobalSpendGate, 'reserve' | 'settle'>,
    private readonly tenantId: string,
  ) {}

  async pay<T>(
    modelId: string,
    promptTokens: number,
    maxOutputTokens: number,
    call: () => Promise<{ value: T; usage: Usage }>,
  ): Promise<T> {
    const worstUsd = worstCaseCallCostUsd({ modelId }, promptTokens, maxOutputTokens);
    const hold = await this.gate.reserve(worstUsd, this.tenantId);
    // A call that fails after its reservation may still be billed: it keeps the whole reservation.
    const { value, usage } = await call();
    await this.gate.settle(hold, worstUsd, estimateCostUsd({ modelId }, usage));
    return value;
  }
}
