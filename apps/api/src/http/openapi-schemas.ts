import { TASK_STATUSES } from '@vigil/tasks';
import { SCHEDULE_SCHEMAS } from './schedule-schemas';

/**
 * Response shapes of the API as JSON Schema, registered as components by `createOpenApiDocument`
 * and referenced by the controllers' @Api…Response decorators. The API answers plain objects built
 * by `toTaskView` and the logs, so the shapes are written here rather than derived from classes.
 */
type Schema = Record<string, unknown>;

const iso = (description: string): Schema => ({
  type: 'string',
  format: 'date-time',
  nullable: true,
  description,
});
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const ERROR: Schema = {
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  description:
    'Every error (one filter, apps/api/src/http/error.filter.ts): at most 20 problems and 3,000 characters of message, so a body stays under 4 KB.',
  properties: {
    statusCode: { type: 'integer', example: 409 },
    error: { type: 'string', example: 'Conflict' },
    message: { type: 'string', example: 'the task is completed; only paused tasks can be resumed' },
    currentStatus: { type: 'string', enum: [...TASK_STATUSES], description: 'on a 409 from a control' },
    activeTasks: { type: 'integer', description: 'on a 429 from MAX_ACTIVE_TASKS_PER_TENANT' },
    code: {
      type: 'string',
      enum: ['store_full'],
      description: 'on a 503: Redis is full and takes no writes',
    },
  },
};

const RETRY_ENTRY: Schema = {
  type: 'object',
  properties: {
    attempt: { type: 'integer' },
    model: { type: 'string', example: 'opus' },
    provider: { type: 'string', nullable: true, enum: ['anthropic', 'google', 'scripted', null] },
    result: { type: 'string', enum: ['failed'] },
    reason: {
      type: 'string',
      enum: ['crashed', 'frozen', 'hung_call', 'tool_error', 'failed_verification', 'limit', 'looping'],
    },
    detail: { type: 'string' },
    costUsd: { type: 'number' },
    at: iso('when the attempt ended'),
  },
};

const CHECK_RESULT: Schema = {
  type: 'object',
  properties: {
    check: { type: 'string', example: 'all_steps_recorded' },
    expected: { description: 'what the criterion requires' },
    actual: { description: 'what the check found in the external system or the record' },
    passed: { type: 'boolean' },
    detail: { type: 'string' },
  },
};

const TASK: Schema = {
  type: 'object',
  description: 'The task record as the API shows it (GET /v1/tasks/:id); timestamps ISO 8601.',
  properties: {
    id: { type: 'string', example: 'tsk_1d982b2ac676e501f1108442' },
    tenantId: { type: 'string', example: 'local' },
    conversationId: { type: 'string', nullable: true },
    parentId: { type: 'string', nullable: true },
    kind: { type: 'string', example: 'noop' },
    kindVersion: {
      type: 'integer',
      example: 1,
      description:
        "the kind's version when the task was created: a Worker runs it only if one of its kinds can (statusReason kind_version_unavailable while none can)",
    },
    title: { type: 'string' },
    input: { type: 'object', additionalProperties: true, description: "the kind's input, as validated" },
    status: { type: 'string', enum: [...TASK_STATUSES] },
    statusReason: {
      type: 'string',
      nullable: true,
      enum: [
        'user',
        'budget',
        'global_spend_limit',
        'human_input',
        'children',
        'unresolved_write',
        'archived',
        'kind_version_unavailable',
        'tenant_daily_budget',
        'tenant_max_running',
        'tenant_fair_share',
        null,
      ],
      description:
        "why a task is paused or waiting (queued with tenant_max_running: all its tenant's running places are taken; tenant_fair_share: its tenant holds its fair share while another tenant waits)",
    },
    attempt: {
      type: 'integer',
      minimum: 1,
      description: 'incremented by every recovery (the fencing token)',
    },
    model: { type: 'string', example: 'opus' },
    provider: { type: 'string', nullable: true, enum: ['anthropic', 'google', 'scripted', null] },
    currentStep: { type: 'string', nullable: true, example: 'noop_step step:4' },
    completedUnits: { type: 'integer', nullable: true },
    totalUnits: { type: 'integer', nullable: true },
    lastHeartbeatAt: iso("the Worker's last heartbeat"),
    inFlight: {
      type: 'object',
      nullable: true,
      description: 'the model or tool call in flight, as the last heartbeat reported it',
      properties: {
        kind: { type: 'string', enum: ['model', 'tool'] },
        name: { type: 'string' },
        since: iso('when the call started'),
        deadlineAt: iso('when it overruns'),
      },
    },
    loopLagMs: {
      type: 'number',
      nullable: true,
      description: "the Worker's event-loop lag at its last heartbeat",
    },
    lastVerifiedStep: { type: 'integer' },
    sliceCount: { type: 'integer' },
    consecutiveErrors: { type: 'integer' },
    retryCount: { type: 'integer' },
    retryHistory: { type: 'array', items: RETRY_ENTRY },
    exitCriteria: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          check: { type: 'string' },
          expected: {},
          args: { type: 'object', additionalProperties: true },
        },
      },
    },
    verification: {
      type: 'object',
      nullable: true,
      properties: {
        passed: { type: 'boolean' },
        checks: { type: 'array', items: CHECK_RESULT },
        at: iso('when'),
      },
    },
    result: { description: "the kind's result once completed", nullable: true },
    failure: { description: 'the structured failure report once failed', nullable: true },
    budgetUsd: { type: 'number' },
    spentUsd: { type: 'number' },
    createdAt: iso('created'),
    startedAt: iso('first slice started'),
    updatedAt: iso('last change'),
    finishedAt: iso('reached a terminal state'),
    activeMs: {
      type: 'number',
      description: 'time spent in active states (paused and waiting time excluded)',
    },
    lastUserUpdateAt: iso('last progress message to the user'),
    recoveryOwner: { type: 'string', nullable: true },
    recoveryLeaseExpiresAt: iso("the Watcher's recovery lease"),
    codeVersion: { type: 'string', example: '0.1.0+84199d609453', description: 'of the slice in flight' },
    claim: {
      type: 'object',
      nullable: true,
      description: "the Worker's completion claim (a claim, not completion)",
    },
    humanQuestion: { type: 'string', nullable: true },
    humanDeadlineAt: iso('when an unanswered question fails the task'),
    archived: {
      type: 'boolean',
      description:
        'true for a task read from its archive in the object store (finished, read-only), and for a mission a newer one in its conversation set aside (statusReason archived; live and resumable)',
    },
    children: {
      type: 'object',
      nullable: true,
      properties: { total: { type: 'integer' }, running: { type: 'integer' }, done: { type: 'integer' } },
    },
    sandbox: { type: 'boolean' },
    notify: { type: 'object', properties: { webhookUrl: { type: 'string' } } },
    agent: { type: 'object', additionalProperties: true },
  },
};

const page = (items: Schema, description: string): Schema => ({
  type: 'object',
  required: ['data'],
  properties: {
    data: { type: 'array', items, description },
    nextCursor: { type: 'string', description: 'present when there is a next page: pass it as `cursor`' },
  },
});

const ACTION: Schema = {
  type: 'object',
  description: 'one tool call as the runtime recorded it (never the model)',
  properties: {
    step: { type: 'integer' },
    attempt: { type: 'integer' },
    slice: { type: 'integer' },
    tool: { type: 'string', example: 'noop_step' },
    key: { type: 'string', nullable: true, description: 'the logical step, e.g. adset:0:3' },
    args: { type: 'object', additionalProperties: true },
    result: { description: 'the tool result (absent on error)' },
    error: { type: 'string' },
    startedAt: { type: 'number', description: 'epoch ms' },
    durationMs: { type: 'number' },
    deduplicated: { type: 'boolean', description: 'answered from the write journal' },
    codeVersion: { type: 'string' },
  },
};

const MESSAGE: Schema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    taskId: { type: 'string' },
    kind: {
      type: 'string',
      enum: ['progress', 'recovery', 'agent', 'human_input', 'control', 'completed', 'failed'],
    },
    text: { type: 'string' },
    sentAt: { type: 'string', format: 'date-time' },
    attempt: { type: 'integer' },
  },
};

export const API_SCHEMAS: Record<string, Schema> = {
  Error: ERROR,
  Task: TASK,
  TaskPage: page(ref('Task'), 'newest first'),
  ChildList: {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('Task'), description: 'oldest first' } },
  },
  ActionPage: page(ACTION, 'oldest first'),
  ArtifactList: {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'array',
        description: 'in the order they were recorded',
        items: {
          type: 'object',
          additionalProperties: true,
          properties: {
            id: { type: 'string', description: 'the SHA-256 of its bytes' },
            step: { type: 'integer', description: 'the action-log step whose result holds it' },
            tool: { type: 'string', description: 'as the task names it' },
            name: { type: 'string', description: 'what the tool called it, when it did' },
            mimeType: { type: 'string', example: 'image/png' },
            bytes: { type: 'integer' },
            width: { type: 'integer', description: 'pixels, for a raster image' },
            height: { type: 'integer', description: 'pixels, for a raster image' },
            createdAt: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
  },
  MessagePage: page(MESSAGE, 'oldest first'),
  ConversationPage: page(
    {
      type: 'object',
      properties: {
        from: {
          type: 'string',
          enum: ['user', 'vigil', 'task'],
          description: 'the person, a reply, or a task',
        },
        text: { type: 'string' },
        at: { type: 'string', format: 'date-time' },
        route: { type: 'string', description: 'on a reply: simple, tools or mission' },
        taskId: { type: 'string' },
        kind: {
          type: 'string',
          description: "on a task's message: progress, recovery, agent, human_input, …",
        },
        messageId: { type: 'string' },
      },
    },
    'in time order',
  ),
  ConversationReply: {
    type: 'object',
    properties: {
      route: { type: 'string', enum: ['simple', 'tools', 'mission'] },
      reply: { type: 'string' },
      taskId: { type: 'string', description: 'the task started for a mission' },
    },
  },
  TenantSpend: {
    type: 'object',
    required: ['tenantId', 'day', 'spentUsd', 'exhausted'],
    properties: {
      tenantId: { type: 'string' },
      day: { type: 'string', example: '2026-12-02', description: 'the UTC day counted' },
      spentUsd: {
        type: 'number',
        description:
          "what the tenant's model calls (its tasks', the router's and the tools loop's) spent or hold reserved today; counted while a limit applies (the tenant's daily budget or the global cap)",
      },
      dailyBudgetUsd: {
        type: 'number',
        description: "the catalog's tenants.<id>.dailyBudgetUsd; absent: none",
      },
      exhausted: {
        type: 'boolean',
        description:
          'the day’s budget is used up: tasks paused with tenant_daily_budget stay paused until tomorrow (UTC)',
      },
    },
  },
  ...SCHEDULE_SCHEMAS,
};

export const schemaRef = ref;
