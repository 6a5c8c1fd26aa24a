import type { ToolOutcome } from './tool-executor';

/**
 * Characters of an output's JSON one `read_output` answer shows at most: with JSON's escaping at
 * worst doubling them, still under the prompt's bound of one result (slice-conversation.ts), so
 * a window is never itself cut.
 */
export const READ_OUTPUT_WINDOW = 3_500;

/**
 * `read_output {key, offset?}` (docs/models.md, "Prompts that stay bounded"): a saved output in
 * full — one that fits at once as `{key, output}`, a longer one in windows of its JSON, each
 * naming where the next starts — so whatever a cut result or a slice's opening left out can
 * always be read. `whole` turns a claim-checked output (`{stored: …}`) back into the output.
 */
export async function readOutput(
  key: string,
  offset: number,
  saved: unknown,
  whole: (saved: unknown) => Promise<unknown>,
): Promise<ToolOutcome> {
  let output: unknown;
  try {
    output = await whole(saved);
  } catch (error) {
    return { key: null, ok: false, error: `the output of ${key} could not be read: ${String(error)}` };
  }
  const json = JSON.stringify(output) ?? 'null';
  if (offset === 0 && json.length <= READ_OUTPUT_WINDOW)
    return { key: null, ok: true, result: { key, output } };
  if (offset >= json.length)
    return {
      key: null,
      ok: false,
      error: `offset ${offset} is past the end of ${key}'s output (${json.length} characters)`,
    };
  const end = Math.min(json.length, offset + READ_OUTPUT_WINDOW);
  const next = end < json.length ? end : undefined;
  const window = {
    key,
    offset,
    totalChars: json.length,
    ...(next !== undefined ? { nextOffset: next } : {}),
  };
  const more =
    next !== undefined
      ? `; the rest: read_output {"key":${JSON.stringify(key)},"offset":${next}}`
      : '; the end';
  const header = `[output of ${key} as JSON, characters ${offset}–${end} of ${json.length}${more}]`;
  return { key: null, ok: true, result: window, shown: `${header}\n${json.slice(offset, end)}` };
}
