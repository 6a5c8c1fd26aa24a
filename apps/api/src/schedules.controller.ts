import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  ChangeScheduleUseCase,
  CreateScheduleDto,
  CreateScheduleUseCase,
  FireScheduleUseCase,
  ScheduleQueue,
  ScheduleStore,
  toRunView,
  toScheduleView,
  type Schedule,
} from '@vigil/schedules';
import { ApiKeyGuard } from './http/api-key.guard';
import { schemaRef } from './http/openapi-schemas';
import { PageQuery } from './http/page-query';
import { Tenant } from './http/tenant.decorator';
import { RateLimited } from './limits/rate-limited.decorator';

/**
 * `/v1/schedules` (docs/schedules.md): the API stores schedules and upserts or removes their BullMQ
 * job schedulers; the Watchers process the fires. Another tenant's schedule is a 404.
 */
@ApiTags('schedules')
@ApiBearerAuth()
@Controller('v1/schedules')
@UseGuards(ApiKeyGuard)
export class SchedulesController {
  constructor(
    private readonly store: ScheduleStore,
    private readonly queue: ScheduleQueue,
    private readonly createSchedule: CreateScheduleUseCase,
    private readonly change: ChangeScheduleUseCase,
    private readonly fire: FireScheduleUseCase,
  ) {}

  private async view(schedule: Schedule) {
    return toScheduleView(schedule, await this.queue.nextFireTime(schedule.id));
  }

  @Post()
  @ApiOperation({
    summary: 'Create a schedule: a cron in an IANA time zone that creates a task at each fire time',
    description:
      'The task body is checked as POST /v1/tasks checks it. At most SCHEDULES_PER_TENANT schedules per tenant, at least SCHEDULE_MIN_INTERVAL_MS between two fires.',
  })
  @ApiCreatedResponse({ description: 'the schedule, active', schema: schemaRef('Schedule') })
  @RateLimited('SCHEDULES_PER_TENANT reached')
  async create(@Tenant() tenantId: string, @Body() body: CreateScheduleDto) {
    return this.view(await this.createSchedule.execute(tenantId, body));
  }

  @Get()
  @ApiOperation({ summary: "This tenant's schedules, newest first, cursor-paged" })
  @ApiOkResponse({ description: 'a page of schedules', schema: schemaRef('SchedulePage') })
  async list(@Tenant() tenantId: string, @Query() query: PageQuery) {
    const page = await this.store.list(tenantId, query.limit ?? 20, query.cursor);
    const data = await Promise.all(page.data.map((schedule) => this.view(schedule)));
    return { data, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One schedule, with its next fire time' })
  @ApiOkResponse({ description: 'the schedule', schema: schemaRef('Schedule') })
  async get(@Tenant() tenantId: string, @Param('id') id: string) {
    return this.view(await this.store.get(tenantId, id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a schedule and its runs; the tasks it created stay' })
  @ApiNoContentResponse({ description: 'deleted' })
  @RateLimited()
  async remove(@Tenant() tenantId: string, @Param('id') id: string): Promise<void> {
    await this.change.delete(tenantId, id);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause a schedule: no fires until it is resumed (missed fires are not caught up)',
  })
  @ApiOkResponse({ description: 'the schedule, paused', schema: schemaRef('Schedule') })
  @RateLimited()
  async pause(@Tenant() tenantId: string, @Param('id') id: string) {
    return this.view(await this.change.pause(tenantId, id));
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume a paused schedule from its next fire time' })
  @ApiOkResponse({ description: 'the schedule, active', schema: schemaRef('Schedule') })
  @RateLimited()
  async resume(@Tenant() tenantId: string, @Param('id') id: string) {
    return this.view(await this.change.resume(tenantId, id));
  }

  @Post(':id/trigger')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Fire a schedule now (paused or not), under its overlap policy and the create limits',
  })
  @ApiOkResponse({
    description: 'the run: the task it created, or why none',
    schema: schemaRef('ScheduleRun'),
  })
  @RateLimited()
  async trigger(@Tenant() tenantId: string, @Param('id') id: string) {
    return toRunView(await this.fire.trigger(tenantId, id));
  }

  @Get(':id/runs')
  @ApiOperation({ summary: "The schedule's runs, newest fire time first: each fire's task or why none" })
  @ApiOkResponse({ description: 'a page of runs', schema: schemaRef('ScheduleRunPage') })
  async runs(@Tenant() tenantId: string, @Param('id') id: string, @Query() query: PageQuery) {
    const page = await this.store.runs(tenantId, id, query.limit ?? 50, query.cursor);
    return { data: page.data.map(toRunView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }
}
