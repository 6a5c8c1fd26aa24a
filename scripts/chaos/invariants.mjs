// The chaos run's verdict, computed from Redis and the sandbox after the storm.
// `drained`: Worker pids sent SIGTERM (a deploy), with when; their tasks must not see a retry.
// `redisFull`: the span `{from, to}` in which Redis was full and then settled, no other blow landing.
export async function checkInvariants({
  redis,
  keys,
  taskIds,
  sandbox,
  interval,
  drained = new Map(),
  redisFull,
}) {
  const result = {
    tasksLost: 0,
    duplicateExternalObjects: 0,
    tasksNotVerifiedOrStructurallyFailed: 0,
    zombieWritesAccepted: 0,
    userMessagesSentTwice: 0,
    progressUpdatesCloserThanHalfAnInterval: 0,
    tasksWithoutExactlyOneFinalMessage: 0,
    retriesOrRecoveryNoticesForDrainedWorkers: 0,
    retriesOrRecoveriesForAFullRedis: 0,
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

    // A zombie write: an action of attempt a recorded after attempt a was declared failed (by the
    // clock), or after an action of a later attempt (by the log's own order, no clocks needed).
    const history = JSON.parse(task.retryHistory || '[]');
    const failedAt = new Map(history.map((entry) => [entry.attempt, entry.at]));
    // A deploy is not a failure: no attempt ended as a death of a Worker that was only told to drain.
    const drainedAttempts = history.filter((entry) => {
      const pid = /-(\d+)-[0-9a-f]+$/.exec(entry.workerId ?? '')?.[1];
      const termAt = pid === undefined ? undefined : drained.get(Number(pid));
      return (
        termAt !== undefined &&
        entry.at >= termAt &&
        ['crashed', 'frozen', 'hung_call'].includes(entry.reason)
      );
    });
    result.retriesOrRecoveryNoticesForDrainedWorkers += drainedAttempts.length;
    // A full Redis is survived: no attempt was ended as a dead, silent or hung one (so no retry and
    // no recovery notice) while it was full or while the tasks it silenced were continued.
    if (redisFull)
      result.retriesOrRecoveriesForAFullRedis += history.filter(
        (entry) =>
          entry.at >= redisFull.from &&
          entry.at <= redisFull.to &&
          ['crashed', 'frozen', 'hung_call'].includes(entry.reason),
      ).length;
    const actions = (await redis.lrange(keys.actions(id), 0, -1)).map((raw) => JSON.parse(raw));
    let latestAttempt = 0;
    for (const action of actions) {
      const end = failedAt.get(action.attempt);
      const lateByClock = end !== undefined && action.startedAt + action.durationMs > end + 50;
      if (lateByClock || action.attempt < latestAttempt) result.zombieWritesAccepted++;
      latestAttempt = Math.max(latestAttempt, action.attempt);
    }

    // Judged by what a user would see, not by message ids (which the scripts already make unique):
    // the same news twice is one recovery notice or one final message told twice for an attempt.
    const messages = (await redis.lrange(keys.messages(id), 0, -1)).map((raw) => JSON.parse(raw));
    const onceEach = new Map();
    for (const m of messages.filter((m) => ['recovery', 'completed', 'failed'].includes(m.kind))) {
      const key = `${m.kind}:${m.attempt}`;
      onceEach.set(key, (onceEach.get(key) ?? 0) + 1);
    }
    for (const count of onceEach.values()) result.userMessagesSentTwice += count - 1;
    const drainedRetries = new Set(drainedAttempts.map((entry) => entry.attempt + 1));
    result.retriesOrRecoveryNoticesForDrainedWorkers += messages.filter(
      (m) => m.kind === 'recovery' && drainedRetries.has(m.attempt),
    ).length;
    const finals = messages.filter((m) => m.kind === 'completed' || m.kind === 'failed');
    const last = messages[messages.length - 1];
    if (finals.length !== 1 || last !== finals[0]) result.tasksWithoutExactlyOneFinalMessage++;
    // The cadence rule: two progress updates are never closer than half an update interval.
    const progress = messages.filter((m) => m.kind === 'progress').map((m) => new Date(m.sentAt).getTime());
    progress.sort((a, b) => a - b);
    for (let i = 1; i < progress.length; i++) {
      if (progress[i] - progress[i - 1] < interval / 2) result.progressUpdatesCloserThanHalfAnInterval++;
    }
  }
  result.duplicateExternalObjects = sandbox.duplicates.reduce((sum, group) => sum + group.ids.length - 1, 0);
  return { result, outcomes };
}
