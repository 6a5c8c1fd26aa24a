import { Module } from '@nestjs/common';
import { ArchivedTasks } from './archive/archived-tasks';
import { ReadableTasks } from './archive/readable-tasks';
import { ArtifactList } from './artifacts/artifact-list';
import { RetentionPolicy } from './archive/retention-policy';
import { ChildTaskRepository } from './children/child-task.repository';
import { ControlSignals } from './control-signals';
import { ConversationStore } from './conversations/conversation-store';
import { MessageLog } from './history/message-log';
import { SpendLedger } from './history/spend-ledger';
import { StepRecorder } from './history/step-recorder';
import { SteeringLog } from './steering/steering-log';
import { TaskContextStore } from './history/task-context.store';
import { WriteJournal } from './history/write-journal';
import { LiveOutputChannel } from './live/live-output-channel';
import { LiveWatchers } from './live/live-watchers';
import { TaskReportReader } from './report/task-report.reader';
import { TaskScripts } from './scripts/task-scripts';
import { TaskRepository } from './task.repository';
import { TASK_SETTINGS, taskSettingsProvider } from './task-settings';
import { TenantSlots } from './tenants/tenant-slots';
import { TenantSpend } from './tenants/tenant-spend';

const STORES = [
  RetentionPolicy,
  TaskScripts,
  TaskRepository,
  TaskContextStore,
  StepRecorder,
  WriteJournal,
  MessageLog,
  SpendLedger,
  ControlSignals,
  TaskReportReader,
  ConversationStore,
  ChildTaskRepository,
  ArchivedTasks,
  ReadableTasks,
  LiveOutputChannel,
  LiveWatchers,
  ArtifactList,
  TenantSlots,
  TenantSpend,
  SteeringLog,
];

/** Everything stored about a task: its record, its history beside it, and the scripts that write them. */
@Module({ providers: [taskSettingsProvider, ...STORES], exports: [TASK_SETTINGS, ...STORES] })
export class TasksModule {}
