import { validateFaultConfig } from './fault-config';
import { SeededRandom } from './rng';
import type { FaultConfig, FaultKind } from './types';

/** What the fault engine decided for one request, before it is routed. */
export interface RequestPlan {
  latencyMs: number;
  /** Fault that pre-empts the request (no side effects). */
  fault?: 'hang' | 'drop' | 'transient500';
  forceRateLimit: boolean;
  /** For POST creates: commit, then destroy the socket. */
  commitThenDrop: boolean;
}

export interface FaultStats {
  requests: number;
  byStatus: Record<string, number>;
  faults: Record<FaultKind, number>;
}

interface ActiveRule {
  pattern: RegExp;
  kind: FaultKind;
  method?: string;
  remaining: number;
}

const emptyFaults = (): Record<FaultKind, number> => ({
  rateLimit: 0,
  transient500: 0,
  hang: 0,
  commitThenDrop: 0,
  drop: 0,
});

/** Seeded, per-request fault decisions plus the rate-limit window and fault statistics. */
export class FaultEngine {
  private config: FaultConfig = {};
  private rules: ActiveRule[] = [];
  private rng: SeededRandom;
  private accepted = 0;
  private burstLeft = 0;
  private codeIndex = 0;
  stats: FaultStats = { requests: 0, byStatus: {}, faults: emptyFaults() };

  constructor(
    config: FaultConfig,
    private readonly seed: number,
  ) {
    this.rng = new SeededRandom(seed);
    this.set(config);
  }

  /** Replaces the config; the rate-limit window and pending failNext rules start afresh. */
  set(input: FaultConfig): void {
    this.config = validateFaultConfig(input);
    this.rules = (this.config.failNext ?? []).map((rule) => ({
      pattern: rule.path instanceof RegExp ? rule.path : new RegExp(rule.path),
      kind: rule.kind,
      method: rule.method?.toUpperCase(),
      remaining: rule.times ?? 1,
    }));
    this.accepted = 0;
    this.burstLeft = 0;
    this.codeIndex = 0;
  }

  get(): FaultConfig {
    return {
      ...this.config,
      failNext: this.rules.map((r) => ({
        path: r.pattern,
        kind: r.kind,
        method: r.method,
        times: r.remaining,
      })),
    };
  }

  /** Back to a fresh state with `config`: counters, stats and the random sequence restart. */
  reset(config: FaultConfig): void {
    this.rng = new SeededRandom(this.seed);
    this.stats = { requests: 0, byStatus: {}, faults: emptyFaults() };
    this.set(config);
  }

  plan(method: string, path: string): RequestPlan {
    this.stats.requests += 1;
    const {
      latencyMs,
      hangProbability = 0,
      transient500Probability = 0,
      commitThenDropProbability = 0,
    } = this.config;
    // Always draw the same number of values per request so one decision never shifts the others.
    const latency = latencyMs ? this.rng.int(latencyMs.min, latencyMs.max) : 0;
    const hang = this.rng.next() < hangProbability;
    const transient = this.rng.next() < transient500Probability;
    const drop = this.rng.next() < commitThenDropProbability;
    const plan: RequestPlan = { latencyMs: latency, forceRateLimit: false, commitThenDrop: false };
    const forced = this.takeRule(method.toUpperCase(), path);
    if (forced === 'rateLimit') plan.forceRateLimit = true;
    else if (forced === 'commitThenDrop') plan.commitThenDrop = true;
    else if (forced) plan.fault = forced;
    else if (hang) plan.fault = 'hang';
    else if (transient) plan.fault = 'transient500';
    else plan.commitThenDrop = drop;
    return plan;
  }

  private takeRule(method: string, path: string): FaultKind | undefined {
    const rule = this.rules.find(
      (r) => r.remaining > 0 && (!r.method || r.method === method) && r.pattern.test(path),
    );
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining === 0) this.rules.splice(this.rules.indexOf(rule), 1);
    return rule.kind;
  }

  /** Returns the rate-limit error code if this call is throttled; otherwise counts it as accepted. */
  rateLimit(forced: boolean): number | undefined {
    const config = this.config.rateLimit;
    const codes = config?.codes ?? [17];
    const nextCode = (): number => codes[this.codeIndex++ % codes.length];
    if (forced) return nextCode();
    if (!config) return undefined;
    if (this.burstLeft > 0) {
      this.burstLeft -= 1;
      return nextCode();
    }
    this.accepted += 1;
    if (this.accepted >= config.every) {
      this.accepted = 0;
      this.burstLeft = config.burst;
    }
    return undefined;
  }

  /** Meta-style usage headers (percentages of the current window). */
  usageHeaders(accountId: string | undefined, throttled: boolean): Record<string, string> {
    const config = this.config.rateLimit;
    const atLimit = throttled || this.burstLeft > 0;
    const pct = atLimit ? 100 : config ? Math.min(99, Math.round((this.accepted / config.every) * 100)) : 1;
    const regain = atLimit ? (config?.regainAccessMinutes ?? 0) : 0;
    const headers: Record<string, string> = {
      'x-app-usage': JSON.stringify({
        call_count: pct,
        total_cputime: Math.ceil(pct / 2),
        total_time: Math.ceil(pct / 2),
      }),
    };
    if (accountId) {
      const entry = {
        type: 'ads_management',
        call_count: pct,
        total_cputime: Math.ceil(pct / 2),
        total_time: Math.ceil(pct / 2),
        estimated_time_to_regain_access: regain,
        ads_api_access_tier: 'development_access',
      };
      headers['x-business-use-case-usage'] = JSON.stringify({ [accountId]: [entry] });
      headers['x-ad-account-usage'] = JSON.stringify({
        acc_id_util_pct: pct,
        reset_time_duration: regain * 60,
        ads_api_access_tier: 'development_access',
      });
    }
    return headers;
  }

  count(kind: FaultKind): void {
    this.stats.faults[kind] += 1;
  }

  countStatus(status: number | 'dropped' | 'hung'): void {
    this.stats.byStatus[status] = (this.stats.byStatus[status] ?? 0) + 1;
  }
}
