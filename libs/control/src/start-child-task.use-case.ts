import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { InvalidTaskInputError, type ChildPlacement, type TaskRecord } from '@vigil/tasks';
import { CreateTaskDto } from './create-task.dto';
import { CreateTaskUseCase } from './create-task.use-case';

/** `start_subtask`'s arguments as the model sends them (DESIGN's contract, plus a mission's evidence). */
export interface SubtaskRequest {
  title?: string;
  goal: string;
  tools?: string[];
  exitCriteria: unknown;
  agent?: unknown;
  evidence?: unknown;
  context?: unknown;
}

export interface StartedChild {
  childId: string;
  /** `running`: its first slice is published; `queued`: it waits for one of the parent's places. */
  placement: ChildPlacement;
}

function flatten(errors: ValidationError[], path = ''): string[] {
  return errors.flatMap((error) => {
    const field = path ? `${path}.${error.property}` : error.property;
    return [
      ...Object.values(error.constraints ?? {}).map((message) => `${field}: ${message}`),
      ...flatten(error.children ?? [], field),
    ];
  });
}

/**
 * A child mission started by its parent's `start_subtask` (docs/missions.md, "Child missions"):
 * a `mission` task of the parent's tenant, through the same DTO validation and the same creation
 * as `POST /v1/tasks`, with the parent's limits on top: its tools are a subset of the parent's,
 * and `agent` may carry only a scripted plan (models and retries are the parent's). Any refusal
 * is an InvalidTaskInputError, which the Worker hands the model as the call's tool error.
 */
@Injectable()
export class StartChildTaskUseCase {
  constructor(private readonly create: CreateTaskUseCase) {}

  async execute(parent: TaskRecord, request: SubtaskRequest, stepKey: string): Promise<StartedChild> {
    const parentTools = toolsOf(parent);
    const tools = request.tools ?? parentTools;
    const outside = Array.isArray(tools) ? tools.filter((tool) => !parentTools.includes(tool)) : [];
    if (outside.length > 0)
      throw new InvalidTaskInputError([
        `tools must be among the parent's (${parentTools.join(', ')}); not: ${outside.join(', ')}`,
      ]);
    const plan = scriptedPlanOf(request.agent);
    const body = {
      kind: 'mission',
      ...(request.title !== undefined ? { title: request.title } : {}),
      input: {
        goal: request.goal,
        tools,
        ...(request.evidence !== undefined ? { evidence: request.evidence } : {}),
        ...(request.context !== undefined ? { context: request.context } : {}),
      },
      exitCriteria: request.exitCriteria,
      parentId: parent.id,
      ...(parent.conversationId ? { conversationId: parent.conversationId } : {}),
      sandbox: parent.sandbox,
      agent: {
        model: parent.model,
        ...(parent.agent.policy ? { policy: parent.agent.policy } : {}),
        ...(plan ? { scripted: { plan } } : {}),
      },
    };
    const dto = plainToInstance(CreateTaskDto, body);
    const problems = flatten(await validate(dto, { whitelist: true, forbidNonWhitelisted: true }));
    if (problems.length > 0) throw new InvalidTaskInputError(problems);
    const { task, placement } = await this.create.execute(parent.tenantId, dto, undefined, { stepKey });
    return { childId: task.id, placement: placement ?? 'queued' };
  }
}

function toolsOf(parent: TaskRecord): string[] {
  const tools = (parent.input as { tools?: unknown } | null)?.tools;
  return Array.isArray(tools) ? tools.filter((tool): tool is string => typeof tool === 'string') : [];
}

/** `agent` of a child: nothing, or `{scripted: {plan}}` and nothing else. */
function scriptedPlanOf(agent: unknown): unknown[] | undefined {
  if (agent === undefined) return undefined;
  const scripted = (agent as { scripted?: unknown } | null)?.scripted as { plan?: unknown } | undefined;
  const onlyPlan =
    agent !== null &&
    typeof agent === 'object' &&
    Object.keys(agent).length === 1 &&
    scripted !== null &&
    typeof scripted === 'object' &&
    Object.keys(scripted).length === 1 &&
    Array.isArray(scripted.plan);
  if (!onlyPlan)
    throw new InvalidTaskInputError([
      'agent may only carry a scripted plan ({scripted: {plan: [...]}}): a child runs on its parent’s models',
    ]);
  return scripted.plan as unknown[];
}
