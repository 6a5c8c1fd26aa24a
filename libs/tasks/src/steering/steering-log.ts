import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';
import { TaskNotFoundError } from '../task-errors';
import { TASK_SETTINGS, type TaskSettings } from '../task-settings';
import type { TaskStatus } from '../task-status';
import { SteerNotAllowedError, SteeringFullError } from './steering-errors';
import { MAX_STEER_INSTRUCTIONS, readInstruction, type SteerInstruction } from './steering.types';

/** What a recorded instruction call answers: the instruction, and whether this call recorded it. */
export interface GivenInstruction {
  instruction: SteerInstruction;
  /** False when the same id was recorded before: the first entry comes back unchanged. */
  created: boolean;
}

/**
 * The instructions given to a task while it runs (docs/api.md, "Steering"): recorded by
 * steer-task.lua (the list, the record's steerCount and the task.steered event in one script) and
 * read whole for a page. A slice reads them with its start (load-slice.lua) and, when a step's
 * count says one is new, from TaskContextStore.steeringSince.
 */
@Injectable()
export class SteeringLog {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(TASK_SETTINGS) private readonly config: Pick<TaskSettings, 'eventStreamMaxLen'>,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  /** Records an instruction for the tenant's task; another tenant's task is not found. */
  async give(
    tenantId: string,
    taskId: string,
    instruction: { id: string; text: string },
    now = Date.now(),
  ): Promise<GivenInstruction> {
    const [code, status, entry] = await this.scripts.run<[number, string, string]>(
      'steer-task',
      [
        this.keys.task(taskId),
        this.keys.steering(taskId),
        this.keys.actions(taskId),
        this.keys.events(this.keys.shardOf(taskId)),
      ],
      [
        tenantId,
        instruction.id,
        instruction.text,
        now,
        MAX_STEER_INSTRUCTIONS,
        this.config.eventStreamMaxLen,
      ],
    );
    switch (code) {
      case ScriptCode.Applied:
        return { instruction: readInstruction(entry), created: true };
      case ScriptCode.Existing:
        return { instruction: readInstruction(entry), created: false };
      case ScriptCode.NotFound:
        throw new TaskNotFoundError(taskId);
      case ScriptCode.StatusMismatch:
        throw new SteerNotAllowedError(taskId, status as TaskStatus);
      case ScriptCode.NotAllowed:
        throw new SteeringFullError(taskId, status as TaskStatus);
      default:
        throw new Error(`steer-task returned unknown code ${code}`);
    }
  }

  /** Every instruction of the task, oldest first (at most MAX_STEER_INSTRUCTIONS). */
  async list(taskId: string): Promise<SteerInstruction[]> {
    return (await this.redis.lrange(this.keys.steering(taskId), 0, -1)).map(readInstruction);
  }
}
