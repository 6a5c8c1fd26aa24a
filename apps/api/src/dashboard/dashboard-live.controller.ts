import {
  Controller,
  Get,
  Headers,
  HttpException,
  HttpStatus,
  Inject,
  Logger,
  Param,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CLOCKS_CONFIG, ClockConfig } from '@vigil/config';
import { CONTROL_FROM } from '@vigil/control';
import {
  TaskBoard,
  taskBody,
  TaskChanges,
  TaskDetailsReader,
  taskRowHtml,
  toTaskRow,
} from '@vigil/dashboard';
import type { TaskEvent } from '@vigil/events';
import { TaskRecord, TaskRepository } from '@vigil/tasks';
import { sessionCsrfToken } from './csrf';
import { boardFilter, LiveQuery } from './dashboard-queries';
import { openSse } from './sse-response';

/** Open dashboard streams per API process: each holds a Redis connection (one operator tab, one stream). */
export const MAX_DASHBOARD_STREAMS = 20;

const lastId = (events: TaskEvent[]) => events.reduce((id, event) => (event.id > id ? event.id : id), '');

/**
 * The dashboard's live streams (Server-Sent Events): whenever an event names a task, it is re-read
 * and its row (list) or page body (task) is sent rendered, so the page's script only swaps markup.
 * Registered before DashboardController, so `live` is not taken for a task id.
 */
@ApiExcludeController()
@Controller('admin/tasks')
export class DashboardLiveController {
  private readonly logger = new Logger(DashboardLiveController.name);

  constructor(
    private readonly board: TaskBoard,
    private readonly details: TaskDetailsReader,
    private readonly changes: TaskChanges,
    private readonly tasks: TaskRepository,
    @Inject(CLOCKS_CONFIG) private readonly clocks: ClockConfig,
  ) {}

  @Get('live')
  async list(
    @Query() query: LiveQuery,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const filter = boardFilter(query);
    const tenants = new Set(this.board.selected(filter));
    this.refuseOverCap(response);
    const sse = openSse(response);
    await this.follow(lastEventId || query.after, sse.closed, response, {
      changed: async (events) => {
        const ids = [...new Set(events.filter((event) => tenants.has(event.tenantId)).map((e) => e.taskId))];
        const records = await Promise.all(ids.map((id) => this.tasks.get(id)));
        const id = lastId(events);
        for (const task of records.filter((record): record is TaskRecord => record !== null)) {
          const html = this.board.matches(task, filter)
            ? taskRowHtml(toTaskRow(task, Date.now(), this.clocks.staleAfterMs), this.clocks.staleAfterMs)
                .html
            : '';
          sse.write('row', { id: task.id, html }, id);
        }
      },
      idle: () => sse.write('comment', null),
    });
  }

  @Get(':id/live')
  async task(
    @Param('id') taskId: string,
    @Query() query: LiveQuery,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    // A missing task is a plain 404 before the stream opens.
    await this.details.read(taskId, CONTROL_FROM);
    const csrf = sessionCsrfToken(request, response);
    this.refuseOverCap(response);
    const sse = openSse(response);
    await this.follow(lastEventId || query.after, sse.closed, response, {
      changed: async (events) => {
        if (!events.some((event) => event.taskId === taskId)) return;
        const details = await this.details.read(taskId, CONTROL_FROM);
        sse.write('page', { html: taskBody(details, csrf, this.clocks.staleAfterMs).html }, lastId(events));
      },
      idle: () => sse.write('comment', null),
    });
  }

  private refuseOverCap(response: Response): void {
    if (this.changes.following < MAX_DASHBOARD_STREAMS) return;
    response.setHeader('Retry-After', '5');
    throw new HttpException(
      `${MAX_DASHBOARD_STREAMS} dashboard streams are open on this API process; close a tab and try again`,
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }

  private async follow(
    after: string | undefined,
    closed: AbortSignal,
    response: Response,
    listener: Parameters<TaskChanges['follow']>[1],
  ): Promise<void> {
    try {
      await this.changes.follow(after, listener, closed);
    } catch (error) {
      this.logger.error(`dashboard live stream failed: ${String(error)}`);
    }
    response.end();
  }
}
