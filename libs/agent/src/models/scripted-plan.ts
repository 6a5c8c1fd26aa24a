import type { BoundKind, KindTool, PlanStep } from '@vigil/kinds';
import { subtaskStepKey, type AgentOptions, type ScriptedCall } from '@vigil/tasks';
import { callKey } from '../runtime/loop-guard';

const callsOf = (turn: unknown): unknown[] => (Array.isArray(turn) ? turn : [turn]);

/**
 * The plan the scripted driver walks for a task (docs/models.md, "The scripted agent is a
 * driver"): the kind's, when it offers one (`scriptedPlan`); otherwise the task's own
 * `agent.scripted.plan` (a mission's), with the task's tools to name and key its steps.
 */
export function scriptedPlanOf(
  bound: BoundKind,
  agent: AgentOptions,
  tools: readonly KindTool[],
): PlanStep[] {
  return bound.scriptedPlan() ?? playedPlan({ input: bound.task.input, agent }, tools);
}

/**
 * A task's `agent.scripted.plan` as the scripted driver plays it: every call, in order, named as
 * the model sees its tool and keyed by the tool's logical step (so the record's done steps say
 * which calls are done); a built-in's key is its place in the plan. Calls of one turn share `turn`.
 * A tool call the plan makes again verbatim is a `repeat`, with a key of its own: made again in
 * each attempt, as a looping model would (docs/missions.md, "Loops").
 */
function playedPlan(task: { input: unknown; agent: AgentOptions }, tools: readonly KindTool[]): PlanStep[] {
  const byTaskName = new Map(tools.map((tool) => [tool.taskName ?? tool.name, tool]));
  const steps: PlanStep[] = [];
  const made = new Map<string, number>();
  (task.agent.scripted?.plan ?? []).forEach((turn, index) => {
    for (const call of callsOf(turn) as ScriptedCall[]) {
      const args = call.args ?? {};
      const tool = byTaskName.get(call.tool);
      // A child's step is its arguments (as the Worker keys the call), so a started child is done.
      let key = call.tool === 'start_subtask' ? subtaskStepKey(args) : `plan:${steps.length}`;
      if (tool) {
        try {
          key = tool.stepKey(args, task.input);
        } catch {
          // Arguments that name no step: the call is made as planned and fails as a tool error.
        }
      }
      const name = tool?.name ?? call.tool;
      const same = tool ? callKey(name, args) : undefined;
      const times = same ? (made.get(same) ?? 0) + 1 : 1;
      if (same) made.set(same, times);
      steps.push(
        times > 1
          ? { key: `${key}#${times}`, tool: name, args, turn: index, repeat: times }
          : { key, tool: name, args, turn: index },
      );
    }
  });
  return steps;
}
