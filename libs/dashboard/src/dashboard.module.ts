import { Module } from '@nestjs/common';
import { TasksModule } from '@vigil/tasks';
import { TaskChanges } from './live/task-changes';
import { TaskBoard } from './task-board';
import { TaskDetailsReader } from './task-details';

/** The operators' read side of the dashboard: rows, the task page, live changes. Reads only. */
@Module({
  imports: [TasksModule],
  providers: [TaskBoard, TaskDetailsReader, TaskChanges],
  exports: [TaskBoard, TaskDetailsReader, TaskChanges],
})
export class DashboardModule {}
