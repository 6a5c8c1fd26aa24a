/**
 * One complete `POST /v1/tasks` body per built-in kind: what `/docs` shows as the request's
 * examples and the README prints, kept here so both say the same thing. test/ops/openapi.int-spec.ts
 * creates the noop and campaign_build examples through the real API, so neither can drift from the
 * kinds' validation.
 */
export const CREATE_TASK_EXAMPLES = {
  noop: {
    summary: 'noop: do-nothing steps, to see supervision work',
    value: { kind: 'noop', title: 'forty quick steps', input: { steps: 40, stepMs: 100 } },
  },
  campaign_build: {
    summary: 'campaign_build: one campaign, one ad set, two ads on the Meta Marketing API',
    value: {
      kind: 'campaign_build',
      title: 'Spring sale, US',
      budgetUsd: 5,
      input: {
        adAccountId: 'act_1234567890',
        pageId: '1122334455',
        campaigns: [
          {
            name: 'Spring Sale 2025',
            objective: 'OUTCOME_TRAFFIC',
            adSets: [
              {
                name: 'US 25-34',
                dailyBudgetCents: 2500,
                targeting: { geo_locations: { countries: ['US'] }, age_min: 25, age_max: 34 },
                ads: [
                  {
                    name: 'Ad 1',
                    imageUrl: 'https://example.com/creative/spring-1.png',
                    link: 'https://example.com/spring',
                    message: 'Fresh styles are here: free shipping on every order this week.',
                  },
                  {
                    name: 'Ad 2',
                    imageUrl: 'https://example.com/creative/spring-2.png',
                    link: 'https://example.com/spring',
                    message: 'Save 20% on everything new with code SPRING20.',
                  },
                ],
              },
            ],
          },
        ],
      },
    },
  },
  mission: {
    summary: 'mission: a goal, catalog tools, and a criterion checked against a tool result',
    value: {
      kind: 'mission',
      title: 'Record the launch owner',
      input: {
        goal: 'Read docs/launch.md, store its owner as an entity in the memory graph, and open a ticket for them.',
        // A tool_result check may only read through a tool the mission may use.
        tools: ['files', 'memory.create_entities', 'memory.read_graph', 'create_ticket'],
      },
      exitCriteria: [
        {
          check: 'tool_result',
          args: { tool: 'memory.read_graph', arguments: {}, pointer: '/structuredContent/entities/0/name' },
          expected: 'Ada Lovelace',
        },
      ],
    },
  },
} as const;
