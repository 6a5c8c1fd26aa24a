// The chaos run's verdict, computed from Redis and the sandbox after the storm.
export async function checkInvariants({ redis, keys, taskIds, sandbox, interval }) {
  const result = {
    tasksLost: 0,
    duplicateExternalObjects: 0,
    tasksNotVerifiedOrStructurallyFailed: 0,
    zombieWritesAccepted: 0,
    userMessagesSentTwice: 0,
    progressIntervalsWithMoreThanOneUpdate: 0,
    tasksWithoutExactlyOneFinalMessage: 0,
  };
  const outcomes = {};
  for (const id of taskIds) {
    const task = await redis.hgetall(keys.task(id));
    if (!task.id) {
      result.tasksLost++;
      continue;
    }
    outcomes[task.status] = (outcomes[task.status] ?? 0) + 1;
    const verification = task.verification ? JSON.parse(task.verification) : null;
    const failure = task.failure ? JSON.parse(task.failure) : null;
    const verified = task.status === 'completed' && verification?.passed === true;
    const structured =
      task.status === 'failed' && failure && failure.reason && Array.isArray(failure.nextSteps);
    if (!verified && !structured) result.tasksNotVerifiedOrStructurallyFailed++;

    // A zombie write: an action of attempt a recorded after attempt a was declared failed.
    const failedAt = new Map(JSON.parse(task.retryHistory || '[]').map((entry) => [entry.attempt, entry.at]));
    const actions = (await redis.lrange(keys.actions(id), 0, -1)).map((raw) => JSON.parse(raw));
    for (const action of actions) {
      const end = failedAt.get(action.attempt);
      if (end !== undefined && action.startedAt + action.durationMs > end + 50) result.zombieWritesAccepted++;
    }

    const messages = (await redis.lrange(keys.messages(id), 0, -1)).map((raw) => JSON.parse(raw));
    const ids = new Set(messages.map((m) => m.id));
    result.userMessagesSentTwice += messages.length - ids.size;
    const finals = messages.filter((m) => m.kind === 'completed' || m.kind === 'failed');
    if (finals.length !== 1) result.tasksWithoutExactlyOneFinalMessage++;
    // Update slots are intervals counted from the task's creation: each may carry one update at most.
    const slots = new Map();
    for (const m of messages.filter((m) => m.kind === 'progress')) {
      const slot = Math.floor((new Date(m.sentAt).getTime() - Number(task.createdAt)) / interval);
      slots.set(slot, (slots.get(slot) ?? 0) + 1);
    }
    for (const count of slots.values()) if (count > 1) result.progressIntervalsWithMoreThanOneUpdate++;
  }
  result.duplicateExternalObjects = sandbox.duplicates.reduce((sum, group) => sum + group.ids.length - 1, 0);
  return { result, outcomes };
}
