import {
  Body,
  Controller,
  Get,
  Header,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import {
  ListChildrenUseCase,
  CREATE_TASK_EXAMPLES,
  CreateTaskDto,
  CreateTaskUseCase,
  GetTaskReportUseCase,
  PauseTaskUseCase,
  ProvideInputDto,
  ProvideInputUseCase,
  ResumeTaskDto,
  ResumeTaskUseCase,
  StopTaskUseCase,
  TaskLogs,
  toTaskView,
} from '@vigil/control';
import {
  ArchivedTasks,
  InvalidTaskInputError,
  ReadableTasks,
  TASK_STATUSES,
  TaskRepository,
  TaskStatus,
} from '@vigil/tasks';
import { ApiKeyGuard } from './http/api-key.guard';
import { schemaRef } from './http/openapi-schemas';
import { PageQuery } from './http/page-query';
import { Tenant } from './http/tenant.decorator';
import { RateLimited } from './limits/rate-limited.decorator';

class ListTasksQuery extends PageQuery {
  @ApiPropertyOptional({ enum: TASK_STATUSES, description: 'only tasks in this status', example: 'running' })
  @IsOptional()
  @IsIn(TASK_STATUSES)
  status?: TaskStatus;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      'true: list the archived tasks instead (finished tasks moved to the object store after their retention), in task-id order; not combinable with status',
    example: true,
  })
  @IsOptional()
  // A query string is text: only "true" and "false" are booleans, anything else fails @IsBoolean.
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  archived?: boolean;
}

/** A page of a task's findings, as `GET /v1/tasks/:id/findings` answers it. */
const FINDINGS_PAGE_SCHEMA = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      description: 'findings in the order the agent recorded them (record_finding)',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          title: { type: 'string' },
          body: { type: 'string' },
          data: { description: 'structured data the agent attached, if any' },
        },
      },
    },
    nextCursor: { type: 'string', description: 'present when there are more findings' },
  },
};

@ApiTags('tasks')
@ApiBearerAuth()
@Controller('v1/tasks')
@UseGuards(ApiKeyGuard)
export class TasksController {
  constructor(
    private readonly createTask: CreateTaskUseCase,
    private readonly stopTask: StopTaskUseCase,
    private readonly pauseTask: PauseTaskUseCase,
    private readonly resumeTask: ResumeTaskUseCase,
    private readonly provideInput: ProvideInputUseCase,
    private readonly tasks: TaskRepository,
    private readonly logs: TaskLogs,
    private readonly getReport: GetTaskReportUseCase,
    private readonly listChildren: ListChildrenUseCase,
    private readonly reads: ReadableTasks,
    private readonly archives: ArchivedTasks,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Create a task of a kind; its exit criteria are fixed now',
    description:
      "`input` is validated by the kind (noop, campaign_build, mission, or a code kind of VIGIL_KINDS). The kind's own exit criteria always apply; `exitCriteria` may add criteria or tighten an `expected`, never remove or loosen one.",
  })
  @ApiBody({ type: CreateTaskDto, examples: CREATE_TASK_EXAMPLES })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'the same key with the same body returns the first task (`Idempotent-Replayed: true`)',
  })
  @ApiCreatedResponse({ description: 'the task, queued', schema: schemaRef('Task') })
  @RateLimited('MAX_ACTIVE_TASKS_PER_TENANT reached: the message says how many tasks are active')
  async create(
    @Tenant() tenantId: string,
    @Body() body: CreateTaskDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ) {
    const { task, created } = await this.createTask.execute(tenantId, body, idempotencyKey);
    if (!created) response.setHeader('Idempotent-Replayed', 'true');
    return toTaskView(task);
  }

  @Get()
  @ApiOperation({
    summary: "This tenant's tasks, newest first, cursor-paged (with archived=true: its archived tasks)",
  })
  @ApiOkResponse({ description: 'a page of tasks', schema: schemaRef('TaskPage') })
  async list(@Tenant() tenantId: string, @Query() query: ListTasksQuery) {
    const limit = query.limit ?? 20;
    if (query.archived && query.status)
      throw new InvalidTaskInputError([
        'status cannot be combined with archived=true: archived tasks are all finished',
      ]);
    const page = query.archived
      ? await this.archives.list(tenantId, limit, query.cursor)
      : await this.tasks.list(tenantId, { status: query.status, limit, cursor: query.cursor });
    return { data: page.data.map(toTaskView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One task: every field of its record (archived: true once read from its archive)',
  })
  @ApiOkResponse({ description: 'the task', schema: schemaRef('Task') })
  async get(@Tenant() tenantId: string, @Param('id') id: string) {
    return toTaskView((await this.reads.find(tenantId, id)).task);
  }

  @Get(':id/children')
  @ApiOperation({ summary: "The task's child tasks (start_subtask or parentId), oldest first" })
  @ApiOkResponse({ description: 'the child tasks', schema: schemaRef('ChildList') })
  async children(@Tenant() tenantId: string, @Param('id') id: string) {
    return { data: (await this.listChildren.execute(tenantId, id)).map(toTaskView) };
  }

  @Post(':id/stop')
  @ApiOperation({ summary: 'Stop a task: cancelled at once, its in-flight calls aborted' })
  @ApiOkResponse({ description: 'the task after the control', schema: schemaRef('Task') })
  @HttpCode(200)
  @RateLimited()
  async stop(@Tenant() tenantId: string, @Param('id') id: string) {
    return toTaskView(await this.stopTask.execute(tenantId, id));
  }

  @Post(':id/pause')
  @ApiOperation({ summary: 'Pause a task: kept as it is, no recovery while paused' })
  @ApiOkResponse({ description: 'the task after the control', schema: schemaRef('Task') })
  @HttpCode(200)
  @RateLimited()
  async pause(@Tenant() tenantId: string, @Param('id') id: string) {
    return toTaskView(await this.pauseTask.execute(tenantId, id));
  }

  @Post(':id/resume')
  @ApiOperation({ summary: 'Resume a paused task (optionally with a higher budgetUsd)' })
  @ApiOkResponse({ description: 'the task after the control', schema: schemaRef('Task') })
  @HttpCode(200)
  @RateLimited()
  async resume(@Tenant() tenantId: string, @Param('id') id: string, @Body() body: ResumeTaskDto) {
    return toTaskView(await this.resumeTask.execute(tenantId, id, body ?? {}));
  }

  @Post(':id/input')
  @ApiOperation({
    summary: 'Answer a task waiting on a person (or say whether an unresolved write happened)',
  })
  @ApiOkResponse({ description: 'the task after the control', schema: schemaRef('Task') })
  @HttpCode(200)
  @RateLimited()
  async input(@Tenant() tenantId: string, @Param('id') id: string, @Body() body: ProvideInputDto) {
    return toTaskView(await this.provideInput.execute(tenantId, id, body));
  }

  @Get(':id/actions')
  @ApiOperation({ summary: "The task's action log (every tool call the runtime recorded), oldest first" })
  @ApiOkResponse({ description: 'a page of actions', schema: schemaRef('ActionPage') })
  actions(@Tenant() tenantId: string, @Param('id') id: string, @Query() query: PageQuery) {
    return this.logs.actions(tenantId, id, query.limit ?? 100, query.cursor);
  }

  @Get(':id/findings')
  @ApiOperation({ summary: "The task's findings, oldest first, cursor-paged" })
  @ApiOkResponse({ description: 'a page of findings', schema: FINDINGS_PAGE_SCHEMA })
  @ApiNotFoundResponse({ description: "no such task for this API key's tenant" })
  findings(@Tenant() tenantId: string, @Param('id') id: string, @Query() query: PageQuery) {
    return this.logs.findings(tenantId, id, query.limit ?? 100, query.cursor);
  }

  @Get(':id/messages')
  @ApiOperation({ summary: 'The messages the user received about the task, oldest first' })
  @ApiOkResponse({ description: 'a page of user messages', schema: schemaRef('MessagePage') })
  messages(@Tenant() tenantId: string, @Param('id') id: string, @Query() query: PageQuery) {
    return this.logs.messages(tenantId, id, query.limit ?? 100, query.cursor);
  }

  @Get(':id/report')
  @Header('Content-Type', 'text/markdown; charset=utf-8')
  @ApiOperation({
    summary: "The task's report in Markdown, built by the runtime from its record",
    description:
      'Status and why, the verification table, the findings, the external writes (made once, deduplicated, reconciled), retries and spend; the agent’s own summary only as a quoted claim.',
  })
  @ApiProduces('text/markdown')
  @ApiOkResponse({ description: 'the report', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: "no such task for this API key's tenant" })
  report(@Tenant() tenantId: string, @Param('id') id: string): Promise<string> {
    return this.getReport.execute(tenantId, id);
  }
}
