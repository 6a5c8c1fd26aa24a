import type { Redis } from 'ioredis';
import type { RedisKeys } from '@vigil/redis';
import { RetentionPolicy } from '../archive/retention-policy';
import { ChildTaskRepository } from '../children/child-task.repository';
import { ControlSignals } from '../control-signals';
import type { TaskSettings } from '../task-settings';
import type { SlicePublisher, WatcherWakeups } from './ports';
import { TaskLifecycle } from './task-lifecycle';
import { TransitionWriter } from './transition-writer';
import { TenantSlots } from '../tenants/tenant-slots';
import { StepRecorder } from '../history/step-recorder';

/**
 * A lifecycle built outside Nest (benches, integration specs): the Redis writer, control signals
 * and children on `redis`, the follow-ups on the given queues.
 */
export function redisTaskLifecycle(
  redis: Redis,
  keys: RedisKeys,
  config: TaskSettings &
    ConstructorParameters<typeof RetentionPolicy>[0] &
    ConstructorParameters<typeof RetentionPolicy>[1],
  queues: { slices: SlicePublisher; wakeups: WatcherWakeups },
): TaskLifecycle {
  return new TaskLifecycle(
    new TransitionWriter(redis, keys, config, new RetentionPolicy(config, config)),
    queues.slices,
    queues.wakeups,
    new ControlSignals(redis, keys),
    new ChildTaskRepository(redis, keys, config),
    new TenantSlots(redis, keys),
    config,
    new StepRecorder(redis, keys, config),
  );
}
