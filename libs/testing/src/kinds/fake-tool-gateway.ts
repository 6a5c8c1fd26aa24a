import {
  ToolCallError,
  ToolNotAllowedError,
  type ConversationDefaults,
  type ExternalTool,
  type ToolCallOptions,
  type ToolCallOutput,
  type ToolGateway,
} from '@vigil/tools';

/** One tool of the fake catalog: what it is and what a call does. */
export interface FakeToolSpec {
  /** `server.tool` for an MCP-like tool, a bare name for an HTTP-like one. */
  catalogName: string;
  effect: 'read' | 'write';
  idempotent?: boolean;
  description?: string;
  inputSchema?: Record<string, unknown>;
  timeoutMs?: number;
  /** Runs the call; its `raw` is the result a `tool_result` check points into. */
  handle(args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolCallOutput> | ToolCallOutput;
  /** A write's lookup: what exists for this idempotency key, null when nothing does. */
  lookup?(args: Record<string, unknown>, options: ToolCallOptions): Promise<unknown> | unknown;
}

/** A call the fake gateway saw: which tool, its arguments, the idempotency key sent with it. */
export interface FakeCall {
  tool: string;
  args: Record<string, unknown>;
  idempotencyKey?: string;
  lookup?: boolean;
  /** The call's W3C traceparent, when traces are on. */
  traceparent?: string;
}

const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
          .join(',')}}`
      : JSON.stringify(value);

/**
 * An in-memory ToolGateway for the mission's tests (docs/missions.md, "The mission kind"): the
 * contract of libs/tools' gateway without processes or network — names by server or `server.tool`,
 * per-tenant allow lists, model names `server__tool`, step keys from the canonical arguments — and
 * a log of every call, so a test can count writes. It fakes the catalog, never Redis.
 */
export class FakeToolGateway implements ToolGateway {
  readonly calls: FakeCall[] = [];
  private readonly specs: Map<string, FakeToolSpec>;

  constructor(
    specs: FakeToolSpec[],
    /** Tenant → the entries it may use (servers or tool names); a tenant not listed may use all. */
    private readonly allow: Record<string, string[]> = {},
  ) {
    this.specs = new Map(specs.map((spec) => [spec.catalogName, spec]));
  }

  callsOf(tool: string, kind: 'call' | 'lookup' = 'call'): FakeCall[] {
    return this.calls.filter((call) => call.tool === tool && Boolean(call.lookup) === (kind === 'lookup'));
  }

  async validate(tenantId: string, names: string[]): Promise<void> {
    this.resolve(tenantId, names);
  }

  async toolsFor(tenantId: string, names: string[]): Promise<ExternalTool[]> {
    return this.resolve(tenantId, names).map((spec) => this.external(spec));
  }

  conversationDefaults(): ConversationDefaults | undefined {
    return undefined;
  }

  async close(): Promise<void> {}

  private resolve(tenantId: string, names: string[]): FakeToolSpec[] {
    const allowed = this.allow[tenantId];
    const found = new Map<string, FakeToolSpec>();
    for (const name of names) {
      const matching = [...this.specs.values()].filter(
        (spec) => spec.catalogName === name || spec.catalogName.startsWith(`${name}.`),
      );
      if (matching.length === 0) throw new ToolNotAllowedError(name, `tool ${name} is not in the catalog`);
      const server = name.split('.')[0];
      if (allowed && !allowed.includes(name) && !allowed.includes(server))
        throw new ToolNotAllowedError(name, `tenant ${tenantId} may not use ${name}`);
      for (const spec of matching) found.set(spec.catalogName, spec);
    }
    return [...found.values()];
  }

  private external(spec: FakeToolSpec): ExternalTool {
    const dot = spec.catalogName.indexOf('.');
    const server = dot > 0 ? spec.catalogName.slice(0, dot) : null;
    const log = this.calls;
    return {
      catalogName: spec.catalogName,
      modelName: spec.catalogName.replace('.', '__'),
      server,
      description: spec.description ?? `fake ${spec.catalogName}`,
      inputSchema: spec.inputSchema ?? { type: 'object' },
      effect: spec.effect,
      idempotent: spec.idempotent ?? false,
      hasLookup: spec.lookup !== undefined,
      ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
      stepKey: (args) => `${spec.catalogName}:${canonical(args)}`,
      async call(args, options) {
        log.push({
          tool: spec.catalogName,
          args,
          ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
          ...(options.traceparent ? { traceparent: options.traceparent } : {}),
        });
        options.signal.throwIfAborted();
        return spec.handle(args, options);
      },
      ...(spec.lookup
        ? {
            async lookup(args: Record<string, unknown>, options: ToolCallOptions) {
              log.push({
                tool: spec.catalogName,
                args,
                lookup: true,
                ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
              });
              return spec.lookup!(args, options);
            },
          }
        : {}),
    };
  }
}

/** A ToolCallError, as the real gateway throws for a failed call. */
/** A failed call; `outcomeUnknown` when it failed after it may have taken effect (a lost answer). */
export const toolFailure = (message: string, options: { outcomeUnknown?: boolean } = {}): ToolCallError =>
  new ToolCallError(message, options);
