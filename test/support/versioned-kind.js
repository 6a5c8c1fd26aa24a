// A code kind whose version comes from the environment, for the kind-version e2e test
// (docs/kinds.md, "Versions"): VERSIONED_KIND_VERSION (default 1) and VERSIONED_KIND_COMPATIBLE,
// a comma-separated list of the older versions it continues. Its tasks record findings as the
// request's scripted plan says (asking a person on the way); done when two findings are recorded.
'use strict';

exports.kinds = ({ defineKind, defineCheck, flagRules }) => {
  const version = Number(process.env.VERSIONED_KIND_VERSION || '1');
  const compatible = (process.env.VERSIONED_KIND_COMPATIBLE || '').split(',').filter(Boolean).map(Number);
  return [
    defineKind({
      name: 'versioned_ask',
      version,
      ...(compatible.length > 0 ? { compatibleVersions: compatible } : {}),
      input: {
        type: 'object',
        properties: { topic: { type: 'string', maxLength: 200 } },
        required: ['topic'],
        additionalProperties: false,
      },
      instructions: (input) =>
        `Record two findings about ${input.topic}, asking the person which comes first.`,
      tools: [],
      exitCriteria: [{ check: 'two_findings', expected: true }],
      checks: {
        two_findings: defineCheck(flagRules(), async (criterion, context) => ({
          check: criterion.check,
          expected: criterion.expected,
          actual: context.findings.length >= 2,
          passed: context.findings.length >= 2 || criterion.expected === false,
        })),
      },
    }),
  ];
};
