import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace-base';

/**
 * The SDK's id generator, except for the spans whose ids are derived from a task (its root and
 * its attempts): those are pinned just before the span is started and taken by it.
 */
export class PinnedIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private traceId?: string;
  private spanId?: string;

  pin(traceId: string | undefined, spanId: string): void {
    this.traceId = traceId;
    this.spanId = spanId;
  }

  unpin(): void {
    this.traceId = undefined;
    this.spanId = undefined;
  }

  generateTraceId(): string {
    const pinned = this.traceId;
    this.traceId = undefined;
    return pinned ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    const pinned = this.spanId;
    this.spanId = undefined;
    return pinned ?? this.random.generateSpanId();
  }
}
