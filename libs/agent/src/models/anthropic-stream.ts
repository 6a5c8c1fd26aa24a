import type Anthropic from '@anthropic-ai/sdk';

/**
 * The text of a streamed Messages API reply, handed on as it arrives: each `text_delta`, and a
 * newline before every text block after the first, so that the pieces joined are exactly the
 * text `parseAnthropicReply` makes of the final message (its text blocks joined by newlines).
 */
export function anthropicTextStream(
  onText: (text: string) => void,
): (event: Anthropic.MessageStreamEvent) => void {
  let textBlocks = 0;
  return (event) => {
    if (event.type === 'content_block_start' && event.content_block.type === 'text') {
      if (textBlocks++ > 0) onText('\n');
      if (event.content_block.text) onText(event.content_block.text);
    } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
      onText(event.delta.text);
    }
  };
}
