import { StoreFullError, subtaskStepKey, type TaskRecord } from '@vigil/tasks';
import type { parseBuiltin } from './builtin-tools';
import type { ChildTaskStarter } from './child-tasks';
import { readOutput } from './read-output';
import type { SessionServices, SliceData } from './slice-session.types';
import type { ToolOutcome } from './tool-executor';

type BuiltinRequest = ReturnType<typeof parseBuiltin>;

/** A tool call that failed, as the step records it and the model reads it. */
export function failure(error: unknown): ToolOutcome {
  return { key: null, ok: false, error: String(error) };
}

/**
 * The outcome of a built-in that answers by itself, read from what the slice holds: `read_output`
 * (the whole saved output, fetched from the object store when it was claim-checked), or the refusal
 * of a finding that names artifacts the task does not have. Undefined for every other call.
 */
export async function builtinAnswer(
  request: BuiltinRequest,
  slice: Pick<SliceData, 'context' | 'task'>,
  services: Pick<SessionServices, 'outputs' | 'artifactList'>,
): Promise<ToolOutcome | undefined> {
  if (request.tool === 'read_output') {
    const { outputs } = slice.context;
    const whole = (saved: unknown) => services.outputs?.whole(saved, slice.task) ?? Promise.resolve(saved);
    if (!outputs.has(request.key))
      return failure(`no saved output under ${request.key}: read_output takes a completed step's key`);
    const answer = await readOutput(request.key, request.offset, outputs.get(request.key), whole);
    return request.offset === 0 ? withImages(answer, slice.task, services) : answer;
  }
  if (request.tool === 'record_finding' && request.finding.artifacts?.length) {
    const list = services.artifactList;
    const known = new Set(list ? (await list.live(slice.task.id)).map((entry) => entry.id) : []);
    const unknown = request.finding.artifacts.filter((id) => !known.has(id));
    if (unknown.length)
      return failure(
        `not an artifact of this task: ${unknown.join(', ')} (an image a tool returned names its id)`,
      );
  }
  return undefined;
}

/**
 * A read output's images shown to the model again (they count against VISION_MAX_IMAGES like a
 * tool's, docs/models.md, "Images"); one no longer in the object store is said to be gone.
 */
async function withImages(
  answer: ToolOutcome,
  task: SliceData['task'],
  services: Pick<SessionServices, 'outputs'>,
): Promise<ToolOutcome> {
  const output = (answer.result as { output?: unknown } | undefined)?.output;
  if (!answer.ok || output === undefined || !services.outputs) return answer;
  const { images, missing } = await services.outputs.images(output, task);
  if (images.length) answer.images = images;
  if (missing.length)
    answer.shown = [
      answer.shown ?? JSON.stringify(answer.result),
      ...missing.map((id) => `[image ${id} is no longer in the object store]`),
    ].join('\n');
  return answer;
}

/**
 * A child mission, keyed by its arguments: a replayed call (a retried attempt) makes no second child,
 * and a refusal (tools not the parent's, a bad criterion) is the call's tool error. A full Redis is
 * not the call's failure: it ends the slice (docs/operations.md, "A full Redis").
 */
export async function startedSubtask(
  children: ChildTaskStarter,
  task: TaskRecord,
  subtask: Parameters<ChildTaskStarter['execute']>[1],
  args: Record<string, unknown>,
): Promise<ToolOutcome> {
  const key = subtaskStepKey(args);
  try {
    const started = await children.execute(task, subtask, key);
    return { key, ok: true, result: { taskId: started.childId, status: started.placement } };
  } catch (error) {
    if (error instanceof StoreFullError) throw error;
    return failure(error instanceof Error ? error.message : error);
  }
}
