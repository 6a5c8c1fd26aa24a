import { Logger } from '@nestjs/common';
import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import type { VigilConfig } from '@vigil/config';
import { createAnthropicClient, createGeminiClient, type Usage } from '@vigil/agent';
import { classifyMessage, type Classification, type Intent, type Route } from './message-classifier';
import { promptBytesBound, type RouterSpend } from './router-spend';

/** A routed message; `reply` is the router model's own answer to a `simple` message. */
export interface RoutedMessage extends Classification {
  reply?: string;
  /** `model` when ROUTER_MODEL decided, `rules` when the documented fallback did. */
  decidedBy: 'model' | 'rules';
}

/** Nest token of the MessageRouter this process uses. */
export const MESSAGE_ROUTER = Symbol('MESSAGE_ROUTER');

/**
 * Routes one message: the cheap ROUTER_MODEL when configured, the documented rules otherwise. A
 * router model's call is paid by `spend` (the tenant's day and the global cap) when given.
 */
export interface MessageRouter {
  route(text: string, signal: AbortSignal, spend?: RouterSpend): Promise<RoutedMessage>;
}

/** The router model's one call, paid when a payer is given. */
function paid<T>(
  spend: RouterSpend | undefined,
  model: string,
  prompt: unknown[],
  call: () => Promise<{ value: T; usage: Usage }>,
): Promise<T> {
  if (!spend) return call().then(({ value }) => value);
  return spend.pay(model, promptBytesBound(...prompt), ROUTER_MAX_TOKENS, call);
}

const ROUTER_MAX_TOKENS = 512;

const ROUTES: Route[] = ['simple', 'tools', 'mission'];
const INTENTS: Intent[] = [
  'answer',
  'status',
  'stop',
  'pause',
  'resume',
  'list_tasks',
  'findings',
  'report',
  'mission',
  'steer',
];

/** The structured output asked of the router model: one object, every field typed and bounded. */
export const ROUTING_SCHEMA = {
  type: 'object',
  properties: {
    route: {
      type: 'string',
      enum: ROUTES,
      description:
        "simple: answer it in one reply. tools: a question about, or a control of (stop, pause, resume), the user's tasks, or a correction of the mission under way (intent steer: 'skip the EU sites', 'actually only check the pricing page'). mission: many-step work to run in the background.",
    },
    intent: { type: 'string', enum: INTENTS },
    taskId: { type: 'string', description: 'a task id (tsk_…) the message names, if any' },
    alongside: {
      type: 'boolean',
      description: 'true only if the user asks to run it beside the current mission',
    },
    reply: { type: 'string', description: 'for route simple: the answer, at most a few sentences' },
  },
  required: ['route', 'intent', 'alongside'],
  additionalProperties: false,
} as const;

const SYSTEM =
  'You route messages sent to Vigil, a runtime that runs long AI-agent jobs ("missions") in the background ' +
  'and reports on them. Classify the message with the route_message tool. Never start work yourself. ' +
  "A question about where the user's own task or tasks stand, even without a task id and in any language, is " +
  'route tools: "is my task done yet?", "où en est ma tâche ?", "¿ya terminó mi tarea?", "ist meine Aufgabe ' +
  'fertig?" are intent status; "how are my tasks going?", "où en sont mes tâches ?", "¿cómo van mis tareas?", ' +
  '"wie laufen meine Aufgaben?" are intent list_tasks. "How do I cancel my task?" is a question of how-to: simple.';

/** The model's answer, checked: anything off the schema falls back to the rules. */
function checked(value: unknown, text: string): RoutedMessage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const answer = value as Record<string, unknown>;
  if (!ROUTES.includes(answer.route as Route) || !INTENTS.includes(answer.intent as Intent)) return undefined;
  const rules = classifyMessage(text);
  // A question about "my task(s)" is answered from the tasks, never by the router model alone
  // (docs/conversations.md, "Questions about my tasks"): the rules' route stands over `simple`.
  if (rules.about && answer.route === 'simple')
    return { ...rules, rule: 'model (rules: my tasks)', decidedBy: 'model' };
  return {
    route: answer.route as Route,
    intent: answer.intent as Intent,
    alongside: answer.alongside === true,
    // A task id counts only if the message really names it: a model may not invent one.
    ...(rules.taskId ? { taskId: rules.taskId } : {}),
    // Which of the conversation's tasks "my task(s)" means is the rules' reading, as is a task id.
    ...(rules.about ? { about: rules.about } : {}),
    ...(typeof answer.reply === 'string' && answer.reply.trim()
      ? { reply: answer.reply.slice(0, 4000) }
      : {}),
    rule: 'model',
    decidedBy: 'model',
  };
}

export class RulesRouter implements MessageRouter {
  private readonly logger = new Logger('MessageRouter');

  async route(text: string): Promise<RoutedMessage> {
    return { ...classifyMessage(text), decidedBy: 'rules' };
  }

  /** The rules' decision when the router model failed, said in the log and in the decision's rule. */
  async afterFailure(text: string, error: unknown): Promise<RoutedMessage> {
    const why = String(error).slice(0, 120);
    this.logger.warn(`router model failed, the rules route this message: ${why}`);
    return { ...(await this.route(text)), rule: `rules (router model failed: ${why})` };
  }
}

/** Claude with a forced tool call: the tool's input is the structured answer. */
export class AnthropicRouter implements MessageRouter {
  constructor(
    private readonly client: Anthropic,
    private readonly model: string,
    private readonly fallback = new RulesRouter(),
  ) {}

  async route(text: string, signal: AbortSignal, spend?: RouterSpend): Promise<RoutedMessage> {
    try {
      const message = await paid(spend, this.model, [SYSTEM, ROUTING_SCHEMA, text], async () => {
        const reply = await this.client.messages.create(
          {
            model: this.model,
            max_tokens: ROUTER_MAX_TOKENS,
            system: SYSTEM,
            tools: [
              {
                name: 'route_message',
                description: 'Routes the message.',
                input_schema: ROUTING_SCHEMA as never,
              },
            ],
            tool_choice: { type: 'tool', name: 'route_message' },
            messages: [{ role: 'user', content: text }],
          },
          { signal },
        );
        const usage = { inputTokens: reply.usage.input_tokens, outputTokens: reply.usage.output_tokens };
        return { value: reply, usage };
      });
      const call = message.content.find((block) => block.type === 'tool_use');
      return checked(call?.type === 'tool_use' ? call.input : undefined, text) ?? this.fallback.route(text);
    } catch (error) {
      // A failed or late router call (its deadline is the signal) never fails the message.
      return this.fallback.afterFailure(text, error);
    }
  }
}

/** Gemini with a JSON response schema (`responseJsonSchema`, the full JSON Schema form). */
export class GeminiRouter implements MessageRouter {
  constructor(
    private readonly client: GoogleGenAI,
    private readonly model: string,
    private readonly fallback = new RulesRouter(),
  ) {}

  async route(text: string, signal: AbortSignal, spend?: RouterSpend): Promise<RoutedMessage> {
    try {
      const response = await paid(spend, this.model, [SYSTEM, ROUTING_SCHEMA, text], async () => {
        const reply = await this.client.models.generateContent({
          model: this.model,
          contents: [{ role: 'user', parts: [{ text }] }],
          config: {
            systemInstruction: SYSTEM.replace('with the route_message tool', 'as JSON'),
            responseMimeType: 'application/json',
            responseJsonSchema: ROUTING_SCHEMA,
            maxOutputTokens: ROUTER_MAX_TOKENS,
            abortSignal: signal,
          },
        });
        const usage = {
          inputTokens: reply.usageMetadata?.promptTokenCount ?? 0,
          outputTokens: reply.usageMetadata?.candidatesTokenCount ?? 0,
        };
        return { value: reply, usage };
      });
      let parsed: unknown;
      try {
        parsed = JSON.parse(response.text ?? '');
      } catch {
        parsed = undefined;
      }
      return checked(parsed, text) ?? this.fallback.route(text);
    } catch (error) {
      // A failed or late router call (its deadline is the signal) never fails the message.
      return this.fallback.afterFailure(text, error);
    }
  }
}

/**
 * The router for this configuration: ROUTER_MODEL names a Claude (`claude-…`) or Gemini
 * (`gemini-…`) model whose key is set; otherwise, or with no ROUTER_MODEL, the rules decide.
 */
export function createMessageRouter(
  config: Pick<
    VigilConfig,
    | 'routerModel'
    | 'anthropicApiKey'
    | 'anthropicBaseUrl'
    | 'anthropicModel'
    | 'geminiApiKey'
    | 'geminiBaseUrl'
    | 'geminiModel'
  >,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): MessageRouter {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const model = config.routerModel;
  if (model?.startsWith('claude') && config.anthropicApiKey)
    return new AnthropicRouter(createAnthropicClient(config, { maxRetries: 1, timeoutMs }), model);
  if (model?.startsWith('gemini') && config.geminiApiKey)
    return new GeminiRouter(
      createGeminiClient(config, {
        attempts: 1,
        timeoutMs,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
      model,
    );
  return new RulesRouter();
}
