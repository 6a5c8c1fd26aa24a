import { imageReference } from '../models/model-image';
import type { ChatMessage, GenerateRequest, ModelImage, ToolCall, ToolSpec } from '../models/model-provider';
import type { SliceSteering } from './slice-steering';

/** Bound on one tool result as the model reads it back (the full result is in the action log). */
const MAX_TOOL_RESULT_CHARS = 8000;
/** Tool results of the slice kept in full at least; older ones are read back as a one-line summary. */
export const RECENT_TOOL_RESULTS = 4;
/**
 * Older results are trimmed this many at a time, not one per call: between two trims the turns
 * before the newest ones do not change, so the provider's prompt cache keeps reading them
 * (docs/models.md, "Prompts that stay bounded"). At most RECENT_TOOL_RESULTS + TRIM_BATCH - 1
 * results are in full.
 */
export const TRIM_BATCH = 4;
/** An assistant turn's text older than the recent tool results is cut to this. */
const OLD_ASSISTANT_TEXT_CHARS = 300;

export interface SliceConversationOptions {
  /**
   * Trim older turns (default true): the opening and the last RECENT_TOOL_RESULTS tool results stay
   * in full, older results become one line that names their saved output. False keeps every turn
   * in full, as before (docs/models.md, "Prompts that stay bounded").
   */
  trim?: boolean;
  /**
   * Images the prompt carries at most (VISION_MAX_IMAGES, default 3), the newest; 0: none. See
   * `dropOldImages` for how older ones leave.
   */
  maxImages?: number;
  /** New instructions from the user, announced as a user turn before the model call that first sees them. */
  steering?: Pick<SliceSteering, 'takeNew'>;
}

/** VISION_MAX_IMAGES's default. */
const DEFAULT_MAX_IMAGES = 3;

interface PendingResult {
  role: 'tool-pending';
  call: ToolCall;
  ok: boolean;
  payload: unknown;
  /** The logical step whose output was saved, when there was one (read back with read_output). */
  key: string | null;
  /** Images still shown with the result, oldest first. */
  images: ModelImage[];
  /** The one-line references of its images that left the prompt, in the order they left. */
  dropped: string[];
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
  private readonly maxImages: number;
  private readonly steering?: Pick<SliceSteering, 'takeNew'>;
  /** Results that still show images, oldest first. */
  private readonly withImages: PendingResult[] = [];
  /** How many of the slice's results, from the first, are trimmed to their one line (only grows). */
  private trimmedResults = 0;

  constructor(
    private readonly open: () => { system: string; messages: ChatMessage[] },
    options: SliceConversationOptions = {},
  ) {
    this.trim = options.trim ?? true;
    this.maxImages = options.maxImages ?? DEFAULT_MAX_IMAGES;
    this.steering = options.steering;
  }

  assistant(content: string, toolCalls: ToolCall[]): void {
    this.turns.push({ role: 'assistant', content, toolCalls });
  }

  user(content: string): void {
    this.turns.push({ role: 'user', content });
  }

  /** A tool's result or error, rendered (JSON, bounded) only when read; its images shown with it. */
  toolResult(
    call: ToolCall,
    ok: boolean,
    payload: unknown,
    key: string | null = null,
    images: readonly ModelImage[] = [],
  ): void {
    const turn: PendingResult = {
      role: 'tool-pending',
      call,
      ok,
      payload,
      key,
      images: [...images],
      dropped: [],
    };
    this.turns.push(turn);
    if (turn.images.length === 0) return;
    this.withImages.push(turn);
    this.dropOldImages();
  }

  /**
   * At most `maxImages` images, the newest, stay in the prompt (docs/models.md, "Images"). Older
   * ones leave in steps, not one per call: when a new image would pass the cap, the oldest leave
   * until only half the cap (rounded up) is left, so the turns before the newest ones change once
   * every few images instead of on every call, and the calls in between read the whole earlier
   * conversation from the provider's prompt cache. An image that left never comes back: its result
   * carries its one-line reference from then on, the same text on every later call.
   */
  private dropOldImages(): void {
    let shown = this.withImages.reduce((sum, turn) => sum + turn.images.length, 0);
    if (shown <= this.maxImages) return;
    const keep = Math.ceil(this.maxImages / 2);
    while (shown > keep && this.withImages.length) {
      const oldest = this.withImages[0];
      const image = oldest.images.shift()!;
      oldest.dropped.push(imageReference(image));
      shown--;
      if (oldest.images.length === 0) this.withImages.shift();
    }
  }

  /** A result leaving the recent part of the prompt takes its images with it (they become references). */
  private dropAllImages(turn: PendingResult): void {
    if (turn.images.length === 0) return;
    for (const image of turn.images) turn.dropped.push(imageReference(image));
    turn.images = [];
    const index = this.withImages.indexOf(turn);
    if (index >= 0) this.withImages.splice(index, 1);
  }

  /** One model call's request; an instruction given since the last call joins the conversation first. */
  request(tools: ToolSpec[], signal: AbortSignal): GenerateRequest {
    const instruction = this.steering?.takeNew();
    if (instruction) this.user(instruction);
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
    const isResult = (turn: Turn) => turn.role === 'tool' || turn.role === 'tool-pending';
    const resultTurns = this.turns.flatMap((turn, index) => (isResult(turn) ? [index] : []));
    if (this.trim && resultTurns.length - this.trimmedResults >= RECENT_TOOL_RESULTS + TRIM_BATCH)
      this.trimmedResults = resultTurns.length - RECENT_TOOL_RESULTS;
    // Assistant turns before the last trimmed result are old too.
    const boundary = this.trimmedResults ? resultTurns[this.trimmedResults - 1] : -1;
    let seen = 0;
    return [
      ...this.start().messages,
      ...this.turns.map((turn, index): ChatMessage => {
        if (isResult(turn)) seen++;
        const old = this.trim && isResult(turn) && seen <= this.trimmedResults;
        if (turn.role === 'tool-pending') {
          if (old) this.dropAllImages(turn);
          const rendered = renderResult(turn, old);
          // Kept pending until it is old, then frozen in its one-line form; untrimmed, once it shows no image.
          if (old || (!this.trim && turn.images.length === 0)) this.turns[index] = rendered;
          return rendered;
        }
        if (
          this.trim &&
          turn.role === 'assistant' &&
          index < boundary &&
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

/** A result as the model reads it: its text, bounded (saying so), its images or their references. */
function renderResult(turn: PendingResult, old: boolean): ChatMessage {
  // A tool's text for the model (a catalog tool's) goes as it is; anything else as JSON.
  const text = typeof turn.payload === 'string' ? turn.payload : (JSON.stringify(turn.payload) ?? 'null');
  const full = text.length > MAX_TOOL_RESULT_CHARS ? cutResult(text, turn.key) : text;
  const line = old ? summaryLine(turn) : full;
  // A result already shorter than its summary stays as it is.
  let content = line.length < full.length ? line : full;
  if (turn.dropped.length) content = `${content}\n${turn.dropped.join('\n')}`;
  const rendered: ChatMessage = {
    role: 'tool',
    toolCallId: turn.call.id,
    name: turn.call.name,
    content,
    isError: !turn.ok,
  };
  if (turn.images.length) rendered.images = [...turn.images];
  return rendered;
}

/**
 * A result longer than the prompt takes, cut — and saying so, and how to read all of it: nothing a
 * tool answered is silently lost (docs/models.md, "Prompts that stay bounded").
 */
export function cutResult(text: string, key: string | null, limit = MAX_TOOL_RESULT_CHARS): string {
  const how = key
    ? `read_output {"key":${JSON.stringify(key)}} returns it whole`
    : 'the action log keeps it whole';
  return `${text.slice(0, limit)}\n[cut: ${limit} of ${text.length} characters shown; ${how}]`;
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
