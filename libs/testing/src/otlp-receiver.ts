import type { IncomingHttpHeaders, Server } from 'node:http';
import { httpServer } from './http-server';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import * as protobuf from 'protobufjs';

/**
 * The part of OTLP/HTTP's trace export request a test reads (opentelemetry-proto,
 * collector/trace/v1 and trace/v1, field numbers as published), parsed by protobufjs at load.
 */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Scope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  repeated Event events = 11; uint32 dropped_events_count = 12;
  repeated Link links = 13; uint32 dropped_links_count = 14; Status status = 15;
  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
  message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const ExportRequest = protobuf.parse(OTLP_TRACE_PROTO).root.lookupType('otlp.ExportTraceServiceRequest');

/** One span as received, whatever the encoding: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** The resource's `service.name`. */
  service: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  startMs: number;
  endMs: number;
}

export interface ReceivedExport {
  encoding: 'json' | 'protobuf';
  path: string;
  headers: IncomingHttpHeaders;
}

type Any = Record<string, unknown>;

/** JSON ids are hex already; protobuf ids arrive as bytes. */
function hexOf(id: unknown): string | undefined {
  if (id === undefined || id === null || id === '') return undefined;
  if (typeof id === 'string') return id.toLowerCase();
  const hex = Buffer.from(id as Uint8Array).toString('hex');
  return hex === '' ? undefined : hex;
}

function valueOf(any: Any | undefined): unknown {
  if (!any) return undefined;
  if ('stringValue' in any) return any.stringValue;
  if ('boolValue' in any) return any.boolValue;
  if ('intValue' in any) return Number(any.intValue);
  if ('doubleValue' in any) return Number(any.doubleValue);
  if ('arrayValue' in any) return ((any.arrayValue as Any).values as Any[] | undefined)?.map(valueOf) ?? [];
  if ('kvlistValue' in any) return attributesOf((any.kvlistValue as Any).values as Any[]);
  if ('bytesValue' in any) return hexOf(any.bytesValue);
  return undefined;
}

function attributesOf(list: Any[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key as string, valueOf(kv.value as Any)]));
}

const msOf = (nanos: unknown): number => Number(BigInt(String(nanos ?? 0)) / 1_000_000n);

/** Both encodings share one shape once decoded (protobufjs with camelCase names, longs as strings). */
function spansOf(request: Any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of (request.resourceSpans as Any[] | undefined) ?? []) {
    const resource = attributesOf((resourceSpans.resource as Any | undefined)?.attributes as Any[]);
    for (const scopeSpans of (resourceSpans.scopeSpans as Any[] | undefined) ?? [])
      for (const span of (scopeSpans.spans as Any[] | undefined) ?? []) {
        const status = (span.status as Any | undefined) ?? {};
        const parentSpanId = hexOf(span.parentSpanId);
        spans.push({
          traceId: hexOf(span.traceId)!,
          spanId: hexOf(span.spanId)!,
          ...(parentSpanId ? { parentSpanId } : {}),
          name: span.name as string,
          kind: Number(span.kind ?? 0),
          service: String(resource['service.name']),
          attributes: attributesOf(span.attributes as Any[]),
          events: ((span.events as Any[] | undefined) ?? []).map((event) => ({
            name: event.name as string,
            attributes: attributesOf(event.attributes as Any[]),
          })),
          links: ((span.links as Any[] | undefined) ?? []).map((link) => ({
            traceId: hexOf(link.traceId)!,
            spanId: hexOf(link.spanId)!,
          })),
          status: {
            code: Number(status.code ?? 0),
            ...(status.message ? { message: status.message as string } : {}),
          },
          startMs: msOf(span.startTimeUnixNano),
          endMs: msOf(span.endTimeUnixNano),
        });
      }
  }
  return spans;
}

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would be (`POST /v1/traces`, in
 * `application/json` or `application/x-protobuf`, gzip or not): it decodes every export into
 * ReceivedSpans. Anything it cannot decode is answered 400 and remembered in `errors`.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly exports: ReceivedExport[] = [];
  readonly errors: string[] = [];
  /** Spans received, kept or not. */
  count = 0;
  private server?: Server;

  /** `keepSpans: false` (a bench's long run): decode and count, keep nothing. */
  constructor(private readonly options: { keepSpans?: boolean } = {}) {}

  async listen(): Promise<string> {
    this.server = httpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error(`${req.method} ${req.url}`);
          let body = Buffer.concat(chunks);
          if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
          const type = String(req.headers['content-type'] ?? '');
          const encoding = type.startsWith('application/x-protobuf') ? 'protobuf' : 'json';
          const request =
            encoding === 'protobuf'
              ? (ExportRequest.toObject(ExportRequest.decode(body), { longs: String }) as Any)
              : (JSON.parse(body.toString()) as Any);
          const spans = spansOf(request);
          this.count += spans.length;
          if (this.options.keepSpans !== false) {
            this.spans.push(...spans);
            this.exports.push({ encoding, path: req.url, headers: req.headers });
          }
          if (encoding === 'protobuf') res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
          else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } catch (error) {
          this.errors.push(String(error));
          res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  /** `http://127.0.0.1:<port>`: what OTEL_EXPORTER_OTLP_ENDPOINT takes (the exporter adds /v1/traces). */
  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
