import type { components, operations } from './openapi.generated';

/**
 * The API's shapes under short names, all taken from the generated types (openapi.generated.ts),
 * so they change only when the served OpenAPI document does.
 */
type Schemas = components['schemas'];
type JsonOf<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer Body } }>
    ? Body
    : never;

export type Task = Schemas['Task'];
export type TaskStatus = NonNullable<Task['status']>;
export type TaskPage = Schemas['TaskPage'];
export type ChildList = Schemas['ChildList'];
export type ActionPage = Schemas['ActionPage'];
export type Action = ActionPage['data'][number];
export type MessagePage = Schemas['MessagePage'];
export type UserMessage = MessagePage['data'][number];
export type FindingPage = JsonOf<'TasksController_findings', 200>;
export type Finding = FindingPage['data'][number];
export type ArtifactList = Schemas['ArtifactList'];
export type Artifact = ArtifactList['data'][number];
export type ConversationReply = Schemas['ConversationReply'];
export type ConversationMessage = Schemas['ConversationMessageDto'];
export type ResumeTaskBody = Schemas['ResumeTaskDto'];
export type ProvideInputBody = Schemas['ProvideInputDto'];
export type SteerTaskBody = Schemas['SteerTaskDto'];
/** An instruction given to a running task (docs/api.md, "Steering"). */
export type SteerInstruction = JsonOf<'TaskSteeringController_steer', 202>;
export type ApiErrorBody = Schemas['Error'];

/**
 * `POST /v1/tasks`'s body. The generator reads an exit criterion's `expected` (any JSON value) as an
 * empty object; it is widened here to what the API accepts.
 */
export type CreateTaskBody = Omit<Schemas['CreateTaskDto'], 'exitCriteria'> & {
  exitCriteria?: (Omit<Schemas['ExitCriterionDto'], 'expected'> & { expected: unknown })[];
};

export type Schedule = Schemas['Schedule'];
export type SchedulePage = Schemas['SchedulePage'];
export type ScheduleRun = Schemas['ScheduleRun'];
export type ScheduleRunPage = Schemas['ScheduleRunPage'];
/** `POST /v1/schedules`'s body: its `task` is a `POST /v1/tasks` body. */
export type CreateScheduleBody = Omit<Schemas['CreateScheduleDto'], 'task'> & { task: CreateTaskBody };

export type ListTasksQuery = NonNullable<operations['TasksController_list']['parameters']['query']>;
export type PageQuery = NonNullable<operations['TasksController_actions']['parameters']['query']>;

/**
 * Every state a task can be in. The generated types hold no values, so the states are named here,
 * under a check that fails to compile when the API's union gains or loses one.
 */
const EVERY_STATUS = {
  queued: true,
  running: true,
  waiting_on_tool: true,
  waiting_on_human: true,
  paused: true,
  verifying: true,
  retrying: true,
  completed: true,
  failed: true,
  cancelled: true,
} satisfies Record<TaskStatus, true>;
export const TASK_STATUSES = Object.keys(EVERY_STATUS) as TaskStatus[];

/** The states a task never leaves. */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];
