import {
  BadRequestException,
  Controller,
  Get,
  Headers,
  HttpException,
  HttpStatus,
  Logger,
  Param,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import {
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { archivedReplay, isResumeId, type SseSink, TaskEventStream, type UserMessage } from '@vigil/notify';
import { ReadableTasks } from '@vigil/tasks';
import { ApiKeyGuard } from './http/api-key.guard';
import { Tenant } from './http/tenant.decorator';
import { SseSlots } from './limits/sse-slots';

/** A stream refused for MAX_SSE_STREAMS_PER_KEY may try again this many seconds later. */
const RETRY_STREAM_AFTER_S = 5;

/** Sends the headers of an event stream: from here on an error can only end the stream. */
function openStream(response: Response): void {
  response.status(200).set({
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store, no-transform',
    // The socket ends with the stream, so a shutdown (which ends streams) is not held by idle keep-alives.
    connection: 'close',
    'x-accel-buffering': 'no',
  });
  response.flushHeaders();
}

/** GET /v1/tasks/:id/events — the task's events as Server-Sent Events, resumable by Last-Event-ID. */
@ApiTags('tasks')
@Controller('v1/tasks')
@UseGuards(ApiKeyGuard)
export class TaskEventsController {
  private readonly logger = new Logger(TaskEventsController.name);

  constructor(
    private readonly reads: ReadableTasks,
    private readonly stream: TaskEventStream,
    private readonly slots: SseSlots,
  ) {}

  @Get(':id/events')
  @ApiOperation({
    summary: "The task's events as Server-Sent Events, resumable with Last-Event-ID (or ?lastEventId=)",
    description:
      'Replays from the last event id (or the task\'s creation), then follows; ends after the terminal event (and the model calls it cut off). An archived task replays its messages and its terminal event from the archive, then ends (docs/api.md, "Archived tasks"). Each durable event: `id` (stream id), `event` (type), `data` `{id, type, taskId, attempt, at, status, from, data, message?}`. Live model output, not durable and kept about a minute (docs/api.md, "Live model output"): `model.delta` `{attempt, callId, text, offset, final?}` and `model.call_abandoned` `{attempt, callId, reason}`, with ids `<durable id>~<live id>`; both kinds resume with Last-Event-ID.',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'an event stream', schema: { type: 'string' } })
  @ApiTooManyRequestsResponse({
    description: 'this API key already holds MAX_SSE_STREAMS_PER_KEY open streams; `Retry-After` in seconds',
  })
  async events(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Headers('last-event-id') header: string | undefined,
    @Query('lastEventId') query: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    // Checked before the stream opens, so a missing task, an unreadable archive or a bad id is a
    // plain JSON error.
    const { task, archive } = await this.reads.find(tenantId, id);
    const lastEventId = header || query || undefined;
    if (lastEventId !== undefined && !isResumeId(lastEventId))
      throw new BadRequestException(
        'Last-Event-ID must be an event id this stream sent, such as 1700000000000-0 or 1700000000000-0~1700000000123-0',
      );
    if (archive) {
      // Finished and out of Redis: its messages and its end, from the archive (docs/api.md, "Archived tasks").
      const messages = archive.messages.map((entry) => JSON.parse(entry) as UserMessage);
      openStream(response);
      response.write(`retry: 1000\n\n`);
      for (const chunk of archivedReplay(task, messages, lastEventId)) response.write(chunk);
      response.end();
      return;
    }
    const slot = await this.slots.acquire(tenantId);
    if (!slot) {
      response.setHeader('Retry-After', String(RETRY_STREAM_AFTER_S));
      throw new HttpException(
        `this API key already holds ${this.slots.limit} open event streams (MAX_SSE_STREAMS_PER_KEY); close one and try again`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    openStream(response);
    const disconnected = new AbortController();
    // The response's close (not the request's) is the client going away.
    response.on('close', () => disconnected.abort());
    const sink: SseSink = {
      write: (chunk) => response.write(chunk),
      // A full buffer: nothing more is read for this client until it drains (or goes away).
      drained: () =>
        new Promise<void>((resolve) => {
          const done = () => {
            response.off('drain', done);
            response.off('close', done);
            resolve();
          };
          response.on('drain', done);
          response.on('close', done);
        }),
    };
    try {
      await this.stream.pipe(task, lastEventId, sink, disconnected.signal);
    } catch (error) {
      this.logger.error(`event stream of ${id} failed: ${String(error)}`);
    } finally {
      await slot.release();
    }
    response.end();
  }
}
