import type { ChatMessage } from '../models/model-provider';
import { RECENT_TOOL_RESULTS, SliceConversation, TRIM_BATCH } from './slice-conversation';

const page = (i: number) => `page ${i}: ${'a line of the page snapshot. '.repeat(40)}`;

/** Every call's messages over a slice of `results` tool calls, each answered by a long page. */
function slice(results: number): ChatMessage[][] {
  const c = new SliceConversation(() => ({
    system: 's',
    messages: [{ role: 'user', content: 'open', cacheBreakpoint: true }],
  }));
  const calls: ChatMessage[][] = [];
  for (let i = 0; i < results; i++) {
    const call = { id: `t${i}`, name: 'browser__navigate', args: { i } };
    c.assistant(`I open page ${i}. ${'Because the plan says so. '.repeat(20)}`, [call]);
    c.toolResult(call, true, page(i), `navigate:${i}`);
    calls.push(c.request([], new AbortController().signal).messages);
  }
  return calls;
}

const fullResults = (messages: ChatMessage[]) =>
  messages.filter((m) => m.role === 'tool' && m.content.startsWith('page')).length;

describe('older tool results are trimmed in batches (docs/models.md, "Prompts that stay bounded")', () => {
  it('changes the earlier turns once every TRIM_BATCH results, so a call reads the last one from the cache', () => {
    const calls = slice(30);
    // A call whose messages do not start with the previous call's whole conversation moved the cached prefix.
    const moved = calls.flatMap((messages, i) =>
      i > 0 && JSON.stringify(messages.slice(0, calls[i - 1].length)) !== JSON.stringify(calls[i - 1])
        ? [i + 1]
        : [],
    );
    expect(moved).toEqual([8, 12, 16, 20, 24, 28]);
    expect(moved.every((results, i) => i === 0 || results - moved[i - 1] === TRIM_BATCH)).toBe(true);
  });

  it('keeps the prompt bounded: at least the last RECENT_TOOL_RESULTS in full, never more than the batch on top', () => {
    const counts = slice(30).map(fullResults);
    expect(Math.max(...counts)).toBe(RECENT_TOOL_RESULTS + TRIM_BATCH - 1);
    expect(Math.min(...counts.slice(RECENT_TOOL_RESULTS))).toBe(RECENT_TOOL_RESULTS);
    // An assistant turn before the trimmed results is cut with them, at the same call.
    const last = slice(30).at(-1)!;
    const assistants = last.filter((m) => m.role === 'assistant');
    expect(assistants[0].content.length).toBeLessThanOrEqual(300);
    expect(assistants.at(-1)!.content.length).toBeGreaterThan(300);
  });
});
