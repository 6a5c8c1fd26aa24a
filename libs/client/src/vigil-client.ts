import { apiErrorOf, systemErrorCode, VigilConnectionError } from './client-errors';
import type {
  ActionPage,
  ArtifactList,
  ChildList,
  ConversationMessage,
  ConversationReply,
  CreateScheduleBody,
  CreateTaskBody,
  FindingPage,
  ListTasksQuery,
  MessagePage,
  PageQuery,
  ProvideInputBody,
  ResumeTaskBody,
  Schedule,
  SchedulePage,
  ScheduleRun,
  ScheduleRunPage,
  SteerInstruction,
  SteerTaskBody,
  Task,
  TaskPage,
} from './client-types';
import { followEvents, type FollowOptions } from './event-follower';
import type { TaskEventFrame } from './task-events';

export interface VigilClientOptions {
  /** Where the API is, e.g. http://localhost:3000. */
  baseUrl: string;
  /** A key of the API's API_KEYS (sent as `Authorization: Bearer <key>`). */
  apiKey: string;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

type Query = Record<string, string | number | boolean | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * A small typed client of Vigil's HTTP API (docs/cli.md, "The typed client"): one method per
 * route of `/v1/tasks` and conversation messages, the shapes generated from the served OpenAPI
 * document, every refusal a VigilApiError and an absent API a VigilConnectionError.
 */
export class VigilClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetch: typeof fetch;

  constructor(options: VigilClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  readonly tasks = {
    create: (body: CreateTaskBody, options: { idempotencyKey?: string } = {}): Promise<Task> =>
      this.json('POST', '/v1/tasks', {
        body,
        headers: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {},
      }),
    list: (query: ListTasksQuery = {}): Promise<TaskPage> => this.json('GET', '/v1/tasks', { query }),
    get: (id: string): Promise<Task> => this.json('GET', this.taskPath(id)),
    actions: (id: string, page: PageQuery = {}): Promise<ActionPage> =>
      this.json('GET', this.taskPath(id, 'actions'), { query: page }),
    messages: (id: string, page: PageQuery = {}): Promise<MessagePage> =>
      this.json('GET', this.taskPath(id, 'messages'), { query: page }),
    findings: (id: string, page: PageQuery = {}): Promise<FindingPage> =>
      this.json('GET', this.taskPath(id, 'findings'), { query: page }),
    /** The report in Markdown. */
    report: async (id: string): Promise<string> =>
      (await this.request('GET', this.taskPath(id, 'report'))).text(),
    artifacts: (id: string): Promise<ArtifactList> => this.json('GET', this.taskPath(id, 'artifacts')),
    children: (id: string): Promise<ChildList> => this.json('GET', this.taskPath(id, 'children')),
    stop: (id: string): Promise<Task> => this.json('POST', this.taskPath(id, 'stop'), { body: {} }),
    pause: (id: string): Promise<Task> => this.json('POST', this.taskPath(id, 'pause'), { body: {} }),
    resume: (id: string, body: ResumeTaskBody = {}): Promise<Task> =>
      this.json('POST', this.taskPath(id, 'resume'), { body }),
    /** Answers a task waiting on a person. */
    input: (id: string, body: ProvideInputBody): Promise<Task> =>
      this.json('POST', this.taskPath(id, 'input'), { body }),
    /** Gives a running task an instruction (docs/api.md, "Steering"); a repeated key records it once. */
    steer: (
      id: string,
      body: SteerTaskBody,
      options: { idempotencyKey?: string } = {},
    ): Promise<SteerInstruction> =>
      this.json('POST', this.taskPath(id, 'steer'), {
        body,
        headers: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {},
      }),
    /** The task's events, following across reconnects (see followEvents). */
    events: (id: string, options: FollowOptions = {}): AsyncGenerator<TaskEventFrame, void, undefined> =>
      followEvents((lastEventId, signal) => this.openEventStream(id, lastEventId, signal), options),
  };

  /** `/v1/schedules` (docs/schedules.md). */
  readonly schedules = {
    create: (body: CreateScheduleBody): Promise<Schedule> => this.json('POST', '/v1/schedules', { body }),
    list: (page: PageQuery = {}): Promise<SchedulePage> => this.json('GET', '/v1/schedules', { query: page }),
    get: (id: string): Promise<Schedule> => this.json('GET', this.schedulePath(id)),
    delete: async (id: string): Promise<void> => {
      await this.request('DELETE', this.schedulePath(id));
    },
    pause: (id: string): Promise<Schedule> => this.json('POST', this.schedulePath(id, 'pause'), { body: {} }),
    resume: (id: string): Promise<Schedule> =>
      this.json('POST', this.schedulePath(id, 'resume'), { body: {} }),
    /** A fire now: the run says which task it created, or why none. */
    trigger: (id: string): Promise<ScheduleRun> =>
      this.json('POST', this.schedulePath(id, 'trigger'), { body: {} }),
    runs: (id: string, page: PageQuery = {}): Promise<ScheduleRunPage> =>
      this.json('GET', this.schedulePath(id, 'runs'), { query: page }),
  };

  readonly conversations = {
    message: (id: string, body: ConversationMessage): Promise<ConversationReply> =>
      this.json('POST', `/v1/conversations/${encodeURIComponent(id)}/messages`, { body }),
  };

  /** `GET /health` (no key needed). */
  health(): Promise<{ status?: string }> {
    return this.json('GET', '/health');
  }

  private schedulePath(id: string, sub?: string): string {
    return `/v1/schedules/${encodeURIComponent(id)}${sub ? `/${sub}` : ''}`;
  }

  private taskPath(id: string, sub?: string): string {
    return `/v1/tasks/${encodeURIComponent(id)}${sub ? `/${sub}` : ''}`;
  }

  private async openEventStream(
    id: string,
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<string>> {
    const response = await this.request('GET', this.taskPath(id, 'events'), {
      headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal,
    });
    if (!response.body) throw new Error(`GET ${this.taskPath(id, 'events')} answered no body`);
    return response.body.pipeThrough(new TextDecoderStream());
  }

  private async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.request(method, path, options);
    return (await response.json()) as T;
  }

  private async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
      ...options.headers,
    };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new VigilConnectionError(this.baseUrl, systemErrorCode(error), error);
    }
    if (!response.ok) throw await apiErrorOf(response, `${method} ${path}`);
    return response;
  }
}
