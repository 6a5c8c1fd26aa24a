/** The runtime's built-in tools a scripted plan may call beside the mission's own. */
export const PLAN_BUILTINS = [
  'record_finding',
  'message_user',
  'request_human_input',
  'finish_task',
  'read_output',
  'start_subtask',
];

export const PLAN_LIMITS = { turns: 1000, callsPerTurn: 16 } as const;

const callsOf = (turn: unknown): unknown[] => (Array.isArray(turn) ? turn : [turn]);

/**
 * What is wrong with a mission's `agent.scripted.plan`, each problem naming its turn: a turn is
 * one call `{tool, args?}` or an array of calls made in one model turn, each tool a built-in or
 * one of `toolNames` (the catalog names the mission's `tools` resolve to).
 */
export function scriptedPlanProblems(plan: unknown, toolNames: readonly string[]): string[] {
  if (!Array.isArray(plan)) return ['agent.scripted.plan must be an array of turns'];
  if (plan.length === 0) return ['agent.scripted.plan must have at least one turn'];
  if (plan.length > PLAN_LIMITS.turns)
    return [`agent.scripted.plan must have at most ${PLAN_LIMITS.turns} turns (got ${plan.length})`];
  const problems: string[] = [];
  plan.forEach((turn, index) => {
    const label = `agent.scripted.plan[${index}]`;
    const calls = callsOf(turn);
    if (calls.length === 0 || calls.length > PLAN_LIMITS.callsPerTurn) {
      problems.push(
        `${label} must be a call {tool, args} or an array of 1 to ${PLAN_LIMITS.callsPerTurn} calls`,
      );
      return;
    }
    calls.forEach((call, position) => {
      const where = Array.isArray(turn) ? `${label}[${position}]` : label;
      if (!call || typeof call !== 'object' || Array.isArray(call)) {
        problems.push(`${where} must be a call {tool, args}`);
        return;
      }
      const { tool, args, ...rest } = call as Record<string, unknown>;
      for (const name of Object.keys(rest))
        problems.push(`${where}.${name} is not part of a call (it has tool and args)`);
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
        problems.push(`${where}.args must be an object`);
      if (typeof tool !== 'string' || tool.length === 0) problems.push(`${where}.tool must be a tool name`);
      else if (!PLAN_BUILTINS.includes(tool) && !toolNames.includes(tool))
        problems.push(
          `${where}: ${tool} is neither one of the mission's tools (${toolNames.join(', ') || 'none'}) nor a built-in (${PLAN_BUILTINS.join(', ')})`,
        );
    });
  });
  return problems;
}
