import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpLookupFound } from './mcp-lookup-found';
import { mcpResultText } from './mcp-result-text';

describe('MCP results', () => {
  it('shows every kind of content part as text, structured content when there is no text', () => {
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'two parts follow' },
        { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
        { type: 'resource_link', uri: 'file:///r/1', name: 'report' },
        { type: 'resource', resource: { uri: 'file:///r/2', mimeType: 'application/pdf', blob: 'AAAAAA==' } },
        { type: 'resource', resource: { uri: 'file:///r/3', text: 'y'.repeat(3_000) } },
      ],
    };
    const text = mcpResultText(result);
    expect(text.split('\n').slice(0, 5)).toEqual([
      'two parts follow',
      '[audio audio/wav, 3 bytes]',
      '[resource file:///r/1 (report)]',
      '[resource file:///r/2, application/pdf, 4 bytes]',
      '[resource file:///r/3]',
    ]);
    expect(text).toContain('…(truncated, 3000 characters in all)');
    expect(mcpResultText({ content: [], structuredContent: { id: 7 } })).toBe('{"id":7}');
  });

  it('finds a lookup value in the result, its structuredContent, or the JSON of its first text part', () => {
    const structured: CallToolResult = { content: [], structuredContent: { lead: { id: 'L1' } } };
    expect(mcpLookupFound(structured, '/structuredContent/lead/id')).toBe('L1');
    expect(mcpLookupFound(structured, '/lead/id')).toBe('L1');
    const textual: CallToolResult = { content: [{ type: 'text', text: '{"items":[{"id":"L2"}]}' }] };
    expect(mcpLookupFound(textual, '/items/0/id')).toBe('L2');
    expect(mcpLookupFound(textual, '/items/1/id')).toBeNull();
    expect(mcpLookupFound({ content: [{ type: 'text', text: 'not json' }] }, '/id')).toBeNull();
    expect(mcpLookupFound({ content: [], structuredContent: { id: null } }, '/id')).toBeNull();
  });
});
