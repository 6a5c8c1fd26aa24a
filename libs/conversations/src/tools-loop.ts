import type { ModelsConfig } from '@vigil/config';
import type { RouterSpend } from './router-spend';
import {
  AnthropicProvider,
  GeminiProvider,
  promptTokenBound,
  type GenerateRequest,
  type GenerateResult,
  type ChatMessage,
  type ModelProvider,
  type ToolSpec,
} from '@vigil/agent';

/** A read the loop may make: a name, a description and arguments, answered as text. */
export interface ReadTool {
  spec: ToolSpec;
  run(args: Record<string, unknown>): Promise<string>;
}

export interface LoopAnswer {
  text: string;
  /** The reads the model made, in order (for the reply's audit and tests). */
  reads: string[];
}

/** At most this many model calls per message (DESIGN: a bounded loop inside the request). */
export const MAX_LOOP_STEPS = 5;
const TOOL_RESULT_CHARS = 6000;

const SYSTEM =
  "You answer a user's question about their Vigil tasks (long AI-agent jobs run in the background). " +
  'Use the read tools to look at the tasks; never guess a status, a number or a finding. ' +
  'Answer in a few plain sentences once you know. "My task" without an id is the conversation\'s latest task ' +
  '(task_status with no id); "my tasks" are its unfinished ones, else its recent ones (list_tasks).';

/**
 * The `tools` route with a router model (docs/conversations.md, "Conversations"): at most five model
 * calls inside the request, under one deadline, with read-only tools over the conversation's
 * tasks. Without a model the route makes one deterministic read instead.
 */
export class ToolsLoop {
  constructor(private readonly provider: ModelProvider) {}

  /** Each model call is paid by `spend` (the tenant's day and the global cap) when given. */
  async answer(
    question: string,
    tools: ReadTool[],
    signal: AbortSignal,
    spend?: RouterSpend,
  ): Promise<LoopAnswer> {
    const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
    const messages: ChatMessage[] = [{ role: 'user', content: question }];
    const reads: string[] = [];
    for (let step = 0; step < MAX_LOOP_STEPS; step++) {
      // The last call gets no tools: it must answer with what it has read.
      const last = step === MAX_LOOP_STEPS - 1;
      const reply = await this.generate(
        {
          system: SYSTEM,
          messages,
          tools: last ? [] : tools.map((tool) => tool.spec),
          signal,
          maxTokens: 1024,
        },
        spend,
      );
      if (reply.toolCalls.length === 0) return { text: reply.text.trim() || '(no answer)', reads };
      messages.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls });
      for (const call of reply.toolCalls) {
        const tool = byName.get(call.name);
        reads.push(call.name);
        let content: string;
        let isError = false;
        try {
          if (!tool) throw new Error(`unknown tool ${call.name}`);
          content = (await tool.run(call.args ?? {})).slice(0, TOOL_RESULT_CHARS);
        } catch (error) {
          isError = true;
          content = error instanceof Error ? error.message : String(error);
        }
        messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content, isError });
      }
    }
    return { text: 'I could not finish looking that up; ask again or name the task id.', reads };
  }

  private generate(request: GenerateRequest, spend?: RouterSpend): Promise<GenerateResult> {
    if (!spend) return this.provider.generate(request);
    return spend.pay(
      this.provider.modelId,
      promptTokenBound(request),
      request.maxTokens ?? 1024,
      async () => {
        const reply = await this.provider.generate(request);
        return { value: reply, usage: reply.usage };
      },
    );
  }
}

/** The loop for this configuration: ROUTER_MODEL's provider with its key set, or none. */
export function createToolsLoop(config: ModelsConfig, timeoutMs = 20_000): ToolsLoop | null {
  const model = config.routerModel;
  if (model?.startsWith('claude') && config.anthropicApiKey)
    return new ToolsLoop(
      new AnthropicProvider({ ...config, anthropicModel: model }, { maxRetries: 1, timeoutMs }),
    );
  if (model?.startsWith('gemini') && config.geminiApiKey)
    return new ToolsLoop(new GeminiProvider({ ...config, geminiModel: model }, { attempts: 1, timeoutMs }));
  return null;
}
