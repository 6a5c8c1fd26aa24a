import { Body, Controller, Get, Inject, Param, ParseEnumPipe, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CLOCKS_CONFIG, ClockConfig } from '@vigil/config';
import {
  CONTROL_FROM,
  GetArtifactUseCase,
  PauseTaskUseCase,
  ResumeTaskUseCase,
  StopTaskUseCase,
} from '@vigil/control';
import {
  boardPage,
  DASHBOARD_BASE,
  DASHBOARD_SCRIPT,
  DASHBOARD_STYLE,
  TaskBoard,
  TaskDetailsReader,
  taskPage,
} from '@vigil/dashboard';
import { TaskNotFoundError, TaskRepository } from '@vigil/tasks';
import { sendArtifact } from '../http/artifact-response';
import { requireCsrf, sessionCsrfToken } from './csrf';
import {
  BoardQuery,
  boardFilter,
  ControlForm,
  DASHBOARD_CONTROLS,
  DashboardControl,
} from './dashboard-queries';

/** The task dashboard's pages and buttons (docs/operations.md, "The task dashboard"). */
@ApiExcludeController()
@Controller('admin/tasks')
export class DashboardController {
  constructor(
    private readonly board: TaskBoard,
    private readonly details: TaskDetailsReader,
    private readonly tasks: TaskRepository,
    private readonly stopTask: StopTaskUseCase,
    private readonly pauseTask: PauseTaskUseCase,
    private readonly resumeTask: ResumeTaskUseCase,
    private readonly getArtifact: GetArtifactUseCase,
    @Inject(CLOCKS_CONFIG) private readonly clocks: ClockConfig,
  ) {}

  @Get()
  async list(@Query() query: BoardQuery, @Req() request: Request, @Res() response: Response): Promise<void> {
    sessionCsrfToken(request, response);
    const filter = boardFilter(query);
    const board = await this.board.read(filter);
    this.html(response, boardPage(board, filter, this.clocks.staleAfterMs));
  }

  @Get('assets/dashboard.js')
  script(@Res() response: Response): void {
    response.type('text/javascript').setHeader('Cache-Control', 'no-cache');
    response.send(DASHBOARD_SCRIPT);
  }

  @Get('assets/dashboard.css')
  style(@Res() response: Response): void {
    response.type('text/css').setHeader('Cache-Control', 'no-cache');
    response.send(DASHBOARD_STYLE);
  }

  @Get(':id')
  async task(@Param('id') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const csrf = sessionCsrfToken(request, response);
    const details = await this.details.read(id, CONTROL_FROM);
    this.html(response, taskPage(details, csrf, this.clocks.staleAfterMs));
  }

  /**
   * An artifact's bytes for the page's thumbnails and links, on the task's own tenant (the
   * operator has no API key here): the same use case and the same safe headers as
   * `GET /v1/tasks/:id/artifacts/:artifactId`, behind the dashboard's admin login.
   */
  @Get(':id/artifacts/:artifactId')
  async artifact(
    @Param('id') id: string,
    @Param('artifactId') artifactId: string,
    @Res() response: Response,
  ): Promise<void> {
    sendArtifact(response, await this.getArtifact.execute(await this.tenantOf(id), id, artifactId));
  }

  /** The same use cases as `POST /v1/tasks/:id/<control>`, on the task's own tenant; then back to the page. */
  @Post(':id/:control')
  async control(
    @Param('id') id: string,
    @Param('control', new ParseEnumPipe(Object.fromEntries(DASHBOARD_CONTROLS.map((c) => [c, c]))))
    control: DashboardControl,
    @Body() form: ControlForm,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    requireCsrf(request, form?.csrf);
    // An archived task has no buttons; a forged form still gets the API's 409 with its status.
    const tenantId = await this.tenantOf(id);
    switch (control) {
      case 'stop':
        await this.stopTask.execute(tenantId, id);
        break;
      case 'pause':
        await this.pauseTask.execute(tenantId, id);
        break;
      case 'resume':
        await this.resumeTask.execute(tenantId, id);
        break;
    }
    response.redirect(303, `${DASHBOARD_BASE}/${encodeURIComponent(id)}`);
  }

  /** The task's tenant, live or from its archive. */
  private async tenantOf(id: string): Promise<string> {
    const tenantId = (await this.tasks.get(id))?.tenantId ?? (await this.details.archivedTenantOf(id));
    if (tenantId === null) throw new TaskNotFoundError(id);
    return tenantId;
  }

  private html(response: Response, page: string): void {
    response.type('text/html; charset=utf-8').setHeader('Cache-Control', 'no-store');
    response.send(page);
  }
}
