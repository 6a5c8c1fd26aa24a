import { ConfigError, HttpToolEntry, HttpToolMethod } from '@vigil/config';
import { scrubSecrets } from '@vigil/platform';
import { binaryLine, toolBinaryOf } from '../binary/tool-binary';
import { argumentCheck, ArgumentCheck } from '../common/argument-validator';
import { boundText } from '../common/bounded-text';
import { CallDeadline } from '../common/call-deadline';
import { Env, fillRecord, fillVariables } from '../common/catalog-variables';
import { resolvePointer } from '../common/json-pointer';
import { stepKeyOf } from '../common/step-key';
import { fillUrl } from '../common/templates';
import {
  ExternalTool,
  ToolCallError,
  ToolCallOptions,
  ToolCallOutput,
  ToolInputSchema,
} from '../tool-gateway';
import { OutboundRequest, sendOutbound } from './outbound-request';

export interface HttpToolSettings {
  env: Env;
  toolCallTimeoutMs: number;
  allowPrivate: boolean;
}

const BODY_METHODS: ReadonlySet<HttpToolMethod> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * An HTTP endpoint of the catalog as a tool (docs/missions.md, "Tools from outside"): the URL's
 * `{{argument}}` placeholders filled URL-encoded, the other arguments as a JSON body (POST, PUT,
 * PATCH) or the query string (GET, DELETE), `${VAR}` filled at the call, the idempotency key in
 * `idempotencyHeader`; the response's JSON body is the raw result.
 */
export class HttpTool implements ExternalTool {
  readonly modelName: string;
  readonly server = null;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  readonly effect: 'read' | 'write';
  readonly idempotent = false;
  readonly hasLookup: boolean;
  readonly timeoutMs?: number;
  readonly lookup?: ExternalTool['lookup'];
  private readonly checkArguments: ArgumentCheck;

  constructor(
    readonly catalogName: string,
    private readonly entry: HttpToolEntry,
    private readonly settings: HttpToolSettings,
  ) {
    this.modelName = catalogName;
    this.description = entry.description;
    this.inputSchema = entry.input;
    this.effect = entry.write ? 'write' : 'read';
    this.hasLookup = entry.lookup !== undefined;
    this.timeoutMs = entry.timeoutMs;
    const compiled = argumentCheck(catalogName, entry.input);
    if (!compiled.compiled) {
      throw new ConfigError(
        `httpTools.${catalogName}: "input" is not a JSON Schema this validator can compile`,
      );
    }
    this.checkArguments = compiled.check;
    const lookup = entry.lookup;
    if (lookup) this.lookup = (args, options) => this.runLookup(lookup, args, options);
  }

  stepKey(args: Record<string, unknown>): string {
    return stepKeyOf(this.catalogName, args, this.entry.keyArguments);
  }

  async call(args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolCallOutput> {
    this.checkArguments(args);
    const request = this.request(args);
    if (this.entry.write && this.entry.idempotencyHeader && options.idempotencyKey) {
      request.headers[this.entry.idempotencyHeader] = options.idempotencyKey;
    }
    if (options.traceparent) request.headers.traceparent = options.traceparent;
    const response = await sendOutbound(
      this.catalogName,
      request,
      this.deadline(options),
      this.settings.allowPrivate,
    );
    if (response.binary) {
      // An image or other binary answer is an artifact: the record keeps its reference only.
      const binary = await toolBinaryOf(response.binary.data, response.binary.contentType);
      return { text: binaryLine(binary), raw: { artifact: binary.ref }, binaries: [binary] };
    }
    const text =
      response.body === null
        ? `(no content, HTTP ${response.status})`
        : boundText(scrubSecrets(JSON.stringify(response.body)));
    return { text, raw: response.body };
  }

  private request(args: Record<string, unknown>): OutboundRequest {
    const where = `httpTools.${this.catalogName}`;
    const { url, used } = fillUrl(
      fillVariables(this.entry.url, this.settings.env, `${where}.url`),
      args,
      where,
    );
    const rest = Object.entries(args).filter(([name, value]) => !used.has(name) && value !== undefined);
    const headers = {
      accept: 'application/json',
      ...fillRecord(this.entry.headers, this.settings.env, `${where}.headers`),
    };
    if (BODY_METHODS.has(this.entry.method)) {
      return {
        method: this.entry.method,
        url,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(Object.fromEntries(rest)),
      };
    }
    const target = new URL(url);
    for (const [name, value] of rest)
      target.searchParams.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    return { method: this.entry.method, url: target.toString(), headers };
  }

  /**
   * `found` is a JSON pointer into the lookup's response body: present and not null, the write
   * happened and that is its result. A non-2xx lookup is a failed lookup (it throws), never "not
   * found": a wrong URL must not make a write look undone and be repeated.
   */
  private async runLookup(
    lookup: NonNullable<HttpToolEntry['lookup']>,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<unknown> {
    const where = `${this.catalogName} lookup`;
    if (!options.idempotencyKey) throw new ToolCallError(`${where}: needs the write's idempotency key`);
    const template = fillVariables(lookup.url, this.settings.env, `httpTools.${this.catalogName}.lookup.url`);
    const { url } = fillUrl(template, { ...args, idempotencyKey: options.idempotencyKey }, where);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...fillRecord(this.entry.headers, this.settings.env, `httpTools.${this.catalogName}.headers`),
    };
    if (options.traceparent) headers.traceparent = options.traceparent;
    const response = await sendOutbound(
      where,
      { method: lookup.method, url, headers },
      this.deadline(options),
      this.settings.allowPrivate,
    );
    const value = resolvePointer(response.body, lookup.found);
    return value === undefined ? null : value;
  }

  private deadline(options: ToolCallOptions): CallDeadline {
    return new CallDeadline(this.entry.timeoutMs ?? this.settings.toolCallTimeoutMs, options.signal);
  }
}
