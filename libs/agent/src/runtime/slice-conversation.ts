import type { ChatMessage, GenerateRequest, ToolCall, ToolSpec } from '../models/model-provider';

/** Bound on one tool result as the model reads it back (the full result is in the action log). */
const MAX_TOOL_RESULT_CHARS = 8000;

type Turn = ChatMessage | { role: 'tool-pending'; call: ToolCall; ok: boolean; payload: unknown };

/**
 * A slice's conversation with its model: the opening built from the record, then every turn of
 * the slice. Nothing is rendered until a provider reads the request, so a driver that reads no
 * prompt (the scripted agent) costs no prompt building at all.
 */
export class SliceConversation {
  private opening?: { system: string; messages: ChatMessage[] };
  private readonly turns: Turn[] = [];

  constructor(private readonly open: () => { system: string; messages: ChatMessage[] }) {}

  assistant(content: string, toolCalls: ToolCall[]): void {
    this.turns.push({ role: 'assistant', content, toolCalls });
  }

  user(content: string): void {
    this.turns.push({ role: 'user', content });
  }

  /** A tool's result or error, rendered (JSON, bounded) only when read. */
  toolResult(call: ToolCall, ok: boolean, payload: unknown): void {
    this.turns.push({ role: 'tool-pending', call, ok, payload });
  }

  request(tools: ToolSpec[], signal: AbortSignal): GenerateRequest {
    const system = () => this.start().system;
    const messages = () => this.messages();
    return {
      get system() {
        return system();
      },
      get messages() {
        return messages();
      },
      tools,
      signal,
    };
  }

  private start(): { system: string; messages: ChatMessage[] } {
    return (this.opening ??= this.open());
  }

  private messages(): ChatMessage[] {
    for (let i = 0; i < this.turns.length; i++) {
      const turn = this.turns[i];
      if (turn.role !== 'tool-pending') continue;
      this.turns[i] = {
        role: 'tool',
        toolCallId: turn.call.id,
        name: turn.call.name,
        content: JSON.stringify(turn.payload).slice(0, MAX_TOOL_RESULT_CHARS),
        isError: !turn.ok,
      };
    }
    return [...this.start().messages, ...(this.turns as ChatMessage[])];
  }
}
