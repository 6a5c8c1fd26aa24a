import { Injectable } from '@nestjs/common';
import { ProvideInputUseCase } from '@vigil/control';
import {
  DomainError,
  isHumanAnswerSecret,
  parseHumanAnswerToken,
  TaskRecord,
  TaskRepository,
} from '@vigil/tasks';

/** What an answer link shows: the open question, or why it can no longer be answered. */
export type AnswerPage =
  | { state: 'open'; task: TaskRecord; unresolvedWrite: boolean }
  | { state: 'answered'; task: TaskRecord }
  | { state: 'closed'; task: TaskRecord }
  | { state: 'unknown' };

export interface HumanAnswer {
  text: string;
  resolution?: 'done' | 'not_done';
}

/**
 * The answer pages `/h/<task id>.<secret>` (docs/conversations.md, "Human hand-offs"): a link
 * opens as often as needed (a reload, a second device) until it is answered; it takes one answer,
 * through the same use case as `POST /v1/tasks/:id/input`, and afterwards says it was answered.
 */
@Injectable()
export class HumanAnswerUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly input: ProvideInputUseCase,
  ) {}

  async page(token: string): Promise<AnswerPage> {
    const parsed = parseHumanAnswerToken(token);
    const task = parsed ? await this.tasks.get(parsed.taskId) : null;
    if (!parsed || !task || !isHumanAnswerSecret(task, parsed.secret)) return { state: 'unknown' };
    if (task.status === 'waiting_on_human')
      return { state: 'open', task, unresolvedWrite: task.statusReason === 'unresolved_write' };
    return task.humanInput !== null || task.status === 'queued' || task.status === 'running'
      ? { state: 'answered', task }
      : { state: 'closed', task };
  }

  /** Takes the answer once; a second answer, or one after the task moved on, gets the page that says so. */
  async answer(
    token: string,
    answer: HumanAnswer,
  ): Promise<AnswerPage & { accepted?: boolean; problem?: string }> {
    const page = await this.page(token);
    if (page.state !== 'open') return page;
    const text = answer.text.trim();
    if (!text && !answer.resolution) return { ...page, problem: 'Write an answer before sending it.' };
    if (page.unresolvedWrite && !answer.resolution)
      return { ...page, problem: 'Say whether the write happened before sending.' };
    try {
      const task = await this.input.execute(page.task.tenantId, page.task.id, {
        text: text || (answer.resolution === 'done' ? 'it happened' : 'it did not happen'),
        ...(page.unresolvedWrite ? { resolution: answer.resolution } : {}),
      });
      return { state: 'answered', task, accepted: true };
    } catch (error) {
      // Someone answered first (another device, the API): the page says it was answered.
      if (error instanceof DomainError) return this.page(token);
      throw error;
    }
  }
}
