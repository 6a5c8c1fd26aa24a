/** What a model is shown of one tool result at most (docs/missions.md, "Tools from outside"). */
export const TOOL_TEXT_LIMIT = 8_000;

/** Cuts a text to `limit` characters and says how long it was. */
export function boundText(text: string, limit = TOOL_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n…(truncated, ${text.length} characters in all)`;
}
