import type { GenerateRequest, ToolSpec } from './model-provider';
import { AnthropicBillingFake, GeminiBillingFake, anthropicOnFake, geminiOnFake } from '@vigil/testing';

/**
 * A catalog tool's input schema reaches each model API as that API wants it (docs/missions.md,
 * "The mission kind"): Claude's `input_schema` (an object schema), Gemini's `parametersJsonSchema`
 * (full JSON Schema, not the OpenAPI subset of `parameters`), whole — `$defs`, `$ref`, `anyOf`,
 * enums and defaults as an MCP server (here in the shape server-everything's zod schemas list)
 * sends them — through the real SDKs to loopback fakes of their wire formats.
 */
const KEY = 'schema-test-key';
const awkward = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    messageType: { type: 'string', enum: ['error', 'success', 'debug'], description: 'Type of message' },
    includeImage: { type: 'boolean', default: false },
    priority: {
      anyOf: [
        { type: 'number', minimum: 0, maximum: 1 },
        { type: 'string', enum: ['low', 'high'] },
      ],
    },
    items: { type: 'array', items: { $ref: '#/$defs/Item' }, maxItems: 10 },
  },
  required: ['messageType'],
  additionalProperties: false,
  $defs: {
    Item: {
      type: 'object',
      properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['name'],
    },
  },
};
const tools: ToolSpec[] = [
  {
    name: 'everything__annotatedMessage',
    description: 'An MCP tool with an awkward schema.',
    parameters: awkward,
  },
  // A catalog entry that says nothing of its type still goes to Claude as an object schema.
  {
    name: 'create_ticket',
    description: 'An HTTP tool.',
    parameters: { properties: { title: { type: 'string' } } },
  },
];
const request = (): GenerateRequest => ({
  system: 'Use the tools.',
  messages: [{ role: 'user', content: 'Go.' }],
  tools,
  signal: new AbortController().signal,
});
const next = () => ({ name: 'everything__annotatedMessage', args: { messageType: 'debug' } });

describe('catalog tool schemas on the wire', () => {
  it("Claude: input_schema is the server's schema, an object schema", async () => {
    const fake = new AnthropicBillingFake({ apiKey: KEY, next });
    const claude = anthropicOnFake(KEY, await fake.listen());
    try {
      const reply = await claude.generate(request());
      const sent = fake.calls[0].body.tools as Array<Record<string, unknown>>;
      expect(sent.map((tool) => tool.name)).toEqual(['everything__annotatedMessage', 'create_ticket']);
      expect(sent[0].input_schema).toEqual(awkward);
      expect(sent[1].input_schema).toEqual({ type: 'object', properties: { title: { type: 'string' } } });
      expect(reply.toolCalls).toEqual([
        expect.objectContaining({ name: 'everything__annotatedMessage', args: { messageType: 'debug' } }),
      ]);
    } finally {
      await fake.close();
    }
  });

  it('Gemini: parametersJsonSchema carries the whole schema, and no OpenAPI `parameters`', async () => {
    const fake = new GeminiBillingFake({ apiKey: KEY, next });
    const gemini = geminiOnFake(KEY, await fake.listen());
    try {
      const reply = await gemini.generate(request());
      const declarations = fake.calls[0].body.tools[0].functionDeclarations as Array<Record<string, unknown>>;
      expect(declarations[0]).toEqual({
        name: 'everything__annotatedMessage',
        description: 'An MCP tool with an awkward schema.',
        parametersJsonSchema: awkward,
      });
      expect(declarations.every((declaration) => !('parameters' in declaration))).toBe(true);
      expect(reply.toolCalls[0]).toMatchObject({
        name: 'everything__annotatedMessage',
        args: { messageType: 'debug' },
      });
    } finally {
      await fake.close();
    }
  });
});
