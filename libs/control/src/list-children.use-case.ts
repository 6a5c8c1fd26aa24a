import { Injectable } from '@nestjs/common';
import { ChildTaskRepository, TaskRecord, TaskRepository } from '@vigil/tasks';

/** A task's children, oldest first, for its own tenant only (another tenant's task is a 404). */
@Injectable()
export class ListChildrenUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly children: ChildTaskRepository,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord[]> {
    const parent = await this.tasks.getForTenant(taskId, tenantId);
    return this.children.list(parent.id);
  }
}
