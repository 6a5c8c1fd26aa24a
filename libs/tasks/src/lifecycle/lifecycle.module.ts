import { DynamicModule, Module, Type } from '@nestjs/common';
import { TasksModule } from '../tasks.module';
import { SLICE_PUBLISHER, type SlicePublisher, WATCHER_WAKEUPS, type WatcherWakeups } from './ports';
import { TaskLifecycle } from './task-lifecycle';
import { TRANSITION_STORE } from './transition-command';
import { TransitionWriter } from './transition-writer';

/** The queues the lifecycle's follow-ups publish to, bound by the module that has them (libs/queue). */
export interface LifecycleQueues {
  /** The module that provides both queues (QueueModule.forRoot). */
  module: DynamicModule;
  slices: Type<SlicePublisher>;
  wakeups: Type<WatcherWakeups>;
}

/**
 * Provides TaskLifecycle, and the transition writer only to it. libs/tasks does not import
 * libs/queue: each app's module passes the queues it registered.
 */
@Module({})
export class TaskLifecycleModule {
  static forRoot(queues: LifecycleQueues): DynamicModule {
    return {
      module: TaskLifecycleModule,
      imports: [TasksModule, queues.module],
      providers: [
        { provide: TRANSITION_STORE, useClass: TransitionWriter },
        { provide: SLICE_PUBLISHER, useExisting: queues.slices },
        { provide: WATCHER_WAKEUPS, useExisting: queues.wakeups },
        TaskLifecycle,
      ],
      exports: [TaskLifecycle],
    };
  }
}
