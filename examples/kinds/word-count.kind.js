// A complete code kind for Vigil, loaded without forking: `VIGIL_KINDS=examples/kinds/word-count.kind.js`
// (paths resolve from the directory the apps start in). Plain CommonJS, no build step: Vigil calls
// `kinds(kit)` with the helpers a kind is made of, so this file needs nothing from Vigil's dist/.
//
// The job: count the words of a few documents, one tool call per document; done when every
// document has a recorded count and each count is right.
'use strict';

/** @param {import('../../libs/kinds/src/kind-kit').KindKit} kit */
exports.kinds = ({ defineKind, defineTool, defineCheck, flagRules, ToolArgumentError }) => {
  const words = (text) => text.split(/\s+/).filter(Boolean).length;
  const documentNamed = (input, name) => input.documents.find((doc) => doc.name === name);

  // One JSON Schema is the model's view of the arguments and their check: `args.name` is a string here.
  const countWords = defineTool({
    name: 'count_words',
    description: 'Counts the words of one document of the task, by its name.',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    },
    // A read changes nothing outside; a `write` tool would go through the write journal.
    effect: 'read',
    stepKey: (args, input) => {
      if (!documentNamed(input, args.name))
        throw new ToolArgumentError(`name must be one of ${input.documents.map((d) => d.name).join(', ')}`);
      return `count:${args.name}`;
    },
    execute: async (args, context) => {
      const doc = documentNamed(context.input, args.name);
      return { name: doc.name, words: words(doc.text) };
    },
  });

  const wordCount = defineKind({
    // The five required members: name, input, instructions, tools, checks.
    name: 'word_count',
    // The task's input, as a JSON Schema: the API refuses a request that breaks it.
    input: {
      type: 'object',
      properties: {
        documents: {
          type: 'array',
          minItems: 1,
          maxItems: 50,
          items: {
            type: 'object',
            properties: {
              name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
              text: { type: 'string', maxLength: 100000 },
            },
            required: ['name', 'text'],
            additionalProperties: false,
          },
        },
      },
      required: ['documents'],
      additionalProperties: false,
    },
    instructions: (input) =>
      `Call count_words once for each document (${input.documents.map((d) => d.name).join(', ')}), then call finish_task.`,
    tools: [countWords],
    checks: {
      // The evidence is the runtime's record of each step's output, recomputed here: never the
      // agent's word that it counted.
      // `reads`: the parts of the record the check reads; the Watcher loads only those.
      all_documents_counted: defineCheck(
        { ...flagRules(), reads: ['outputs'] },
        async (criterion, context) => {
          const wrong = context.input.documents
            .filter((doc) => context.outputs.get(`count:${doc.name}`)?.words !== words(doc.text))
            .map((doc) => doc.name);
          return {
            check: criterion.check,
            expected: criterion.expected,
            actual: wrong.length === 0,
            passed: wrong.length === 0 || criterion.expected === false,
            ...(wrong.length ? { detail: `not counted correctly: ${wrong.join(', ')}` } : {}),
          };
        },
      ),
    },
    // Optional members. The kind's own criterion, on every task (checked against `checks` at load):
    exitCriteria: [{ check: 'all_documents_counted', expected: true }],
    title: (input) => `Count the words of ${input.documents.length} documents`,
    totalUnits: (input) => input.documents.length,
  });
  return [wordCount];
};
