import type { Redis } from 'ioredis';
import type { VigilConfig } from '@vigil/config';
import type { RedisKeys } from '@vigil/redis';
import { RetentionPolicy } from '../archive/retention-policy';
import { ChildTaskRepository } from '../children/child-task.repository';
import { ControlSignals } from '../control-signals';
import type { SlicePublisher, WatcherWakeups } from './ports';
import { TaskLifecycle } from './task-lifecycle';
import { TransitionWriter } from './transition-writer';

/**
 * A lifecycle built outside Nest (benches, integration specs): the Redis writer, control signals
 * and children on `redis`, the follow-ups on the given queues.
 */
export function redisTaskLifecycle(
  redis: Redis,
  keys: RedisKeys,
  config: VigilConfig,
  queues: { slices: SlicePublisher; wakeups: WatcherWakeups },
): TaskLifecycle {
  return new TaskLifecycle(
    new TransitionWriter(redis, keys, config, new RetentionPolicy(config, config)),
    queues.slices,
    queues.wakeups,
    new ControlSignals(redis, keys),
    new ChildTaskRepository(redis, keys, config),
  );
}
