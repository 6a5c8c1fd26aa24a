// A complete code kind for Vigil, loaded without forking: `VIGIL_KINDS=examples/kinds/word-count.kind.js`
// (paths resolve from the directory the apps start in). Plain CommonJS, no build step: Vigil calls
// `kinds(kit)` with the helpers a kind is made of, so this file needs nothing from Vigil's dist/.
//
// The job: count the words of a few documents, one tool call per document; done when every
// document has a recorded count and each count is right.
'use strict';

/** @param {import('../../libs/kinds/src/kind-kit').KindKit} kit */
exports.kinds = (kit) => {
  const { defineCheck, countRules, ToolArgumentError, validators: v, Type } = kit;

  // Input validation: a class with class-validator rules, applied as functions (no decorator syntax).
  class WordCountDocument {}
  v.IsString()(WordCountDocument.prototype, 'name');
  v.Matches(/^[A-Za-z0-9_.-]{1,64}$/)(WordCountDocument.prototype, 'name');
  v.IsString()(WordCountDocument.prototype, 'text');
  v.MaxLength(100_000)(WordCountDocument.prototype, 'text');

  class WordCountInput {}
  v.IsArray()(WordCountInput.prototype, 'documents');
  v.ArrayMinSize(1)(WordCountInput.prototype, 'documents');
  v.ArrayMaxSize(50)(WordCountInput.prototype, 'documents');
  v.ValidateNested({ each: true })(WordCountInput.prototype, 'documents');
  // class-transformer builds the nested objects from the JSON input.
  Type(() => WordCountDocument)(WordCountInput.prototype, 'documents');

  const words = (text) => text.split(/\s+/).filter(Boolean).length;
  const documentNamed = (input, name) => input.documents.find((doc) => doc.name === name);

  /** @type {import('../../libs/kinds/src/task-kind').TaskKind} */
  const wordCount = {
    name: 'word_count',
    inputClass: WordCountInput,
    // The registry validates this input at boot and derives the criteria and plan from it.
    exampleInput: { documents: [{ name: 'hello.txt', text: 'hello word count' }] },
    totalUnits: (input) => input.documents.length,
    defaultTitle: (input) => `Count the words of ${input.documents.length} documents`,
    defaultExitCriteria: (input) => [{ check: 'all_documents_counted', expected: input.documents.length }],
    instructions: (input) =>
      `Call count_words once for each document (${input.documents.map((d) => d.name).join(', ')}), then call finish_task.`,
    plan: (input) =>
      input.documents.map((doc) => ({
        key: `count:${doc.name}`,
        tool: 'count_words',
        args: { name: doc.name },
      })),
    tools: [
      {
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
          if (typeof args.name !== 'string' || !documentNamed(input, args.name))
            throw new ToolArgumentError(
              `name must be one of ${input.documents.map((d) => d.name).join(', ')}`,
            );
          return `count:${args.name}`;
        },
        execute: async (args, context) => {
          const doc = documentNamed(context.input, args.name);
          return { name: doc.name, words: words(doc.text) };
        },
      },
    ],
    checks: {
      // The evidence is the runtime's record of each step's output, recomputed here: never the
      // agent's word that it counted.
      all_documents_counted: defineCheck(
        countRules((input) => input.documents.length, 'documents'),
        async (criterion, context) => {
          const wrong = [];
          let right = 0;
          for (const doc of context.input.documents) {
            const output = context.outputs.get(`count:${doc.name}`);
            if (output && output.words === words(doc.text)) right++;
            else wrong.push(doc.name);
          }
          const expected = Number(criterion.expected);
          return {
            check: criterion.check,
            expected,
            actual: right,
            passed: right >= expected,
            ...(wrong.length ? { detail: `not counted correctly: ${wrong.join(', ')}` } : {}),
          };
        },
      ),
    },
  };
  return [wordCount];
};
