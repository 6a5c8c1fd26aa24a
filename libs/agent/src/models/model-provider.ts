import type { JsonSchema, PlanStep } from '@vigil/kinds';
import type { ScriptedMisbehaviour } from '@vigil/tasks';

export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError: boolean };

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface GenerateRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  /** State the offline scripted provider drives from; real providers ignore it. */
  session?: ScriptedSessionView;
}

export interface GenerateResult {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
}

/** One model behind one interface: Claude, Gemini, or the deterministic scripted agent. */
export interface ModelProvider {
  readonly name: string;
  readonly modelId: string;
  /** false only for the offline scripted agent: it reads the recorded log, not a prompt, and costs nothing. */
  readonly readsPrompt?: boolean;
  generate(request: GenerateRequest): Promise<GenerateResult>;
}

export interface ScriptedSessionView {
  taskId: string;
  attempt: number;
  plan: PlanStep[];
  /** Logical steps that succeeded, from the recorded log plus this slice. */
  doneSteps: ReadonlySet<string>;
  /** Logical steps this slice already issued (the provider never loops on one). */
  issuedThisSlice: ReadonlySet<string>;
  options: ScriptedMisbehaviour;
  /** Atomically claims a misbehaviour so it fires once per task; false if it already fired. */
  claimTrigger(name: string): Promise<boolean>;
  /** Simulates a wedged process: heartbeats stop while the call hangs. */
  wedge(): void;
  /** Ends the process at once, as a crash would. */
  crash(): never;
}
