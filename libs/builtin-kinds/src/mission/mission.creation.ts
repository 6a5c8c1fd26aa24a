import { InvalidTaskInputError, type ExitCriterion } from '@vigil/tasks';
import { ToolNotAllowedError, type ExternalTool } from '@vigil/tools';
import { boundedProblems } from '@vigil/kinds';
import { ModelRequiredError, type KindCreation, type KindServices } from '@vigil/kinds';
import { privateTargetProblem } from './checks/http-json.check';
import type { MissionInput } from './mission.input';
import { scriptedPlanProblems } from './scripted-plan';

export const EVIDENCE_RULE =
  'a mission needs at least one exit criterion other than findings_count (tool_result or http_json: ' +
  'evidence read from the external systems), or input.evidence: "findings_only" to rest on its findings alone';

export const MODEL_REQUIRED =
  'a mission needs a model key (ANTHROPIC_API_KEY or GEMINI_API_KEY) or agent.scripted.plan';

const KEY_NAME: Record<string, string> = { opus: 'ANTHROPIC_API_KEY', gemini: 'GEMINI_API_KEY' };

/** The tenant's tools as the mission names them, or a 400 naming the first one it may not use. */
async function resolveTools(
  input: MissionInput,
  tenantId: string,
  services: KindServices,
): Promise<ExternalTool[]> {
  try {
    await services.tools.validate(tenantId, input.tools);
    return await services.tools.toolsFor(tenantId, input.tools);
  } catch (error) {
    if (!(error instanceof ToolNotAllowedError)) throw error;
    const named = error.message.includes(error.tool) ? error.message : `${error.tool}: ${error.message}`;
    throw new InvalidTaskInputError([`input.tools: ${named}`]);
  }
}

/** The evidence rule, and each criterion that needs the tools or the network checked. */
async function criteriaProblems(
  input: MissionInput,
  criteria: ExitCriterion[],
  tools: ExternalTool[],
  services: KindServices,
): Promise<string[]> {
  const problems: string[] = [];
  if (input.evidence !== 'findings_only' && !criteria.some((c) => c.check !== 'findings_count'))
    problems.push(`exitCriteria: ${EVIDENCE_RULE}`);
  for (const [index, criterion] of criteria.entries()) {
    const label = `exitCriteria[${index}] (${criterion.check})`;
    if (criterion.check === 'tool_result') {
      const name = String(criterion.args?.tool);
      const tool = tools.find((candidate) => candidate.catalogName === name);
      if (!tool) problems.push(`${label}: args.tool ${name} is not a tool of this mission's servers`);
      else if (tool.effect !== 'read')
        problems.push(`${label}: args.tool ${name} is a write; a check may only call read tools`);
    }
    if (criterion.check === 'http_json') {
      const refused = await privateTargetProblem(
        String(criterion.args?.url),
        services.config.toolsAllowPrivate,
      );
      if (refused) problems.push(`${label}: args.url ${refused}`);
    }
  }
  return problems;
}

/**
 * Offline, honestly: the scripted agent plays only a plan, so a mission whose first attempt runs
 * on a model without its key, and that brings no `agent.scripted.plan`, could do nothing at all.
 */
function assertRunnable(creation: KindCreation, services: KindServices): void {
  if (creation.agent?.scripted?.plan !== undefined) return;
  const { config } = services;
  if (config.modelsWithKeys.length === 0) throw new ModelRequiredError(MODEL_REQUIRED);
  const first = creation.agent?.model ?? config.firstModel;
  if (KEY_NAME[first] && !config.modelsWithKeys.some((model) => model === first))
    throw new ModelRequiredError(
      `${MODEL_REQUIRED}: the first attempt runs on ${first}, and ${KEY_NAME[first]} is not set`,
    );
}

/**
 * A mission's checks at creation that need the tenant or the outside world (docs/missions.md,
 * "The mission kind"): its tools are in the catalog and allowed to the tenant (400 naming the
 * first that is not), the evidence rule, `tool_result` only on read tools, `http_json` only on
 * public addresses (unless TOOLS_ALLOW_PRIVATE), a scripted plan that names only its tools and
 * built-ins (400 naming the turn), and a model key or a plan (422).
 */
export async function validateMission(
  input: MissionInput,
  tenantId: string,
  services: KindServices,
  creation: KindCreation,
): Promise<void> {
  const tools = await resolveTools(input, tenantId, services);
  const problems = await criteriaProblems(input, creation.exitCriteria, tools, services);
  const plan = creation.agent?.scripted?.plan;
  if (plan !== undefined)
    problems.push(
      ...scriptedPlanProblems(
        plan,
        tools.map((tool) => tool.catalogName),
      ),
    );
  if (problems.length > 0) throw new InvalidTaskInputError(boundedProblems(problems));
  assertRunnable(creation, services);
}
