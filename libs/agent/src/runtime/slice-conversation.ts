import type { ChatMessage, GenerateRequest, ToolCall, ToolSpec } from '../models/model-provider';

/** Bound on one tool result as the model reads it back (the full result is in the action log). */
const MAX_TOOL_RESULT_CHARS = 8000;
/** Tool results of the slice kept in full; older ones are read back as a one-line summary. */
export const RECENT_TOOL_RESULTS = 4;
/** An assistant turn's text older than the recent tool results is cut to this. */
const OLD_ASSISTANT_TEXT_CHARS = 300;

export interface SliceConversationOptions {
  /**
   * Trim older turns (default true): the opening and the last RECENT_TOOL_RESULTS tool results stay
   * in full, older results become one line that names their saved output. False keeps every turn
   * in full, as before (docs/models.md, "Prompts that stay bounded").
   */
  trim?: boolean;
}

interface PendingResult {
  role: 'tool-pending';
  call: ToolCall;
  ok: boolean;
  payload: unknown;
  /** The logical step whose output was saved, when there was one (read back with read_output). */
  key: string | null;
}

type Turn = ChatMessage | PendingResult;

/**
 * A slice's conversation with its model: the opening built from the record, then every turn of
 * the slice. Nothing is rendered until a provider reads the request, so a driver that reads no
 * prompt (the scripted agent) costs no prompt building at all.
 */
export class SliceConversation {
  private opening?: { system: string; messages: ChatMessage[] };
  private readonly turns: Turn[] = [];
  private readonly trim: boolean;

  constructor(
    private readonly open: () => { system: string; messages: ChatMessage[] },
    options: SliceConversationOptions = {},
  ) {
    this.trim = options.trim ?? true;
  }

  assistant(content: string, toolCalls: ToolCall[]): void {
    this.turns.push({ role: 'assistant', content, toolCalls });
  }

  user(content: string): void {
    this.turns.push({ role: 'user', content });
  }

  /** A tool's result or error, rendered (JSON, bounded) only when read. */
  toolResult(call: ToolCall, ok: boolean, payload: unknown, key: string | null = null): void {
    this.turns.push({ role: 'tool-pending', call, ok, payload, key });
  }

  request(tools: ToolSpec[], signal: AbortSignal): GenerateRequest {
    return new LazyRequest(this, tools, signal);
  }

  /** The opening's system prompt (rendered on first read). */
  get system(): string {
    return this.start().system;
  }

  private start(): { system: string; messages: ChatMessage[] } {
    return (this.opening ??= this.open());
  }

  /**
   * Every turn is rendered once; a trimmed result stays trimmed, so the older part of the
   * conversation reads the same from one call to the next. Only a result's content is replaced:
   * each tool call keeps its result, so Anthropic's tool_use/tool_result pairing stays valid.
   */
  messages(): ChatMessage[] {
    const results = this.turns.filter((turn) => turn.role === 'tool' || turn.role === 'tool-pending').length;
    let seen = 0;
    const lastAssistant = this.turns.findLastIndex((turn) => turn.role === 'assistant');
    return [
      ...this.start().messages,
      ...this.turns.map((turn, index): ChatMessage => {
        const isResult = turn.role === 'tool' || turn.role === 'tool-pending';
        if (isResult) seen++;
        const old = this.trim && isResult && results - seen >= RECENT_TOOL_RESULTS;
        if (turn.role === 'tool-pending') {
          // A tool's text for the model (a catalog tool's) goes as it is; anything else as JSON.
          const text =
            typeof turn.payload === 'string' ? turn.payload : (JSON.stringify(turn.payload) ?? 'null');
          const full = text.slice(0, MAX_TOOL_RESULT_CHARS);
          const line = old ? summaryLine(turn) : full;
          // A result already shorter than its summary stays as it is.
          const content = line.length < full.length ? line : full;
          const rendered: ChatMessage = {
            role: 'tool',
            toolCallId: turn.call.id,
            name: turn.call.name,
            content,
            isError: !turn.ok,
          };
          // Kept pending until it is old, then frozen in its one-line form.
          if (old || !this.trim) this.turns[index] = rendered;
          return rendered;
        }
        if (
          this.trim &&
          turn.role === 'assistant' &&
          index < lastAssistant - RECENT_TOOL_RESULTS &&
          turn.content.length > OLD_ASSISTANT_TEXT_CHARS
        ) {
          return { ...turn, content: `${turn.content.slice(0, OLD_ASSISTANT_TEXT_CHARS - 1)}…` };
        }
        return turn;
      }),
    ];
  }
}

/**
 * A model call's request whose prompt is rendered only when the provider reads it. A class, not
 * an object literal with getters: one is made per step, and its accessors live on the prototype.
 */
class LazyRequest implements GenerateRequest {
  maxTokens?: number;

  constructor(
    private readonly conversation: SliceConversation,
    readonly tools: ToolSpec[],
    readonly signal: AbortSignal,
  ) {}

  get system(): string {
    return this.conversation.system;
  }

  get messages(): ChatMessage[] {
    return this.conversation.messages();
  }
}

/** An older tool result in one line: how it went and where its output is kept. */
function summaryLine(turn: PendingResult): string {
  if (!turn.ok) {
    const error = (turn.payload as { error?: unknown } | undefined)?.error;
    return JSON.stringify({
      error: String(error ?? 'error')
        .split('\n', 1)[0]
        .slice(0, 200),
    });
  }
  return JSON.stringify(turn.key ? { ok: true, saved_as: turn.key } : { ok: true, summarised: true });
}
