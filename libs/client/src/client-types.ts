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

export type ListTasksQuery = NonNullable<operations['TasksController_list']['parameters']['query']>;
export type PageQuery = NonNullable<operations['TasksController_actions']['parameters']['query']>;

/** The states a task never leaves. */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];
