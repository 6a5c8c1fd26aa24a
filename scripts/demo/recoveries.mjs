// The Watcher's recoveries of one task as the demos show them. Each number comes from the
// `task.recovered` event's data, the same data the notifier words its recovery notice from, so the
// demo's line and the user's message can never show two counts for one fact.
import { line, yellow } from './render.mjs';

/**
 * Follows the task's events through the typed client (replayed from the task's creation, ended
 * after its terminal event, resumed with Last-Event-ID if the stream breaks). `recoveries` maps the
 * attempt each recovery started to that event's data (`{retryNumber, reason, completedUnits}`);
 * `done` settles when the stream ends or is aborted.
 */
function followRecoveries(client, taskId, signal) {
  const recoveries = new Map();
  const done = (async () => {
    for await (const event of client.tasks.events(taskId, { signal }))
      if (event.type === 'task.recovered') recoveries.set(event.attempt, event.data);
  })().catch((error) => {
    if (!signal?.aborted) throw error;
  });
  return { recoveries, done };
}

/**
 * The failed attempts of `task.retryHistory` from `shown` on, each with the recovery that started
 * the next attempt. An attempt waits (and those after it) until its recovery's event has arrived,
 * unless `ended`: an attempt that failed the task for good has no recovery.
 */
function nextRetries(task, recoveries, shown, ended) {
  const ready = [];
  for (const entry of task.retryHistory.slice(shown)) {
    const recovery = recoveries.get(entry.attempt + 1);
    if (!recovery && !ended) break;
    ready.push({ entry, recovery });
  }
  return ready;
}

/** "the Watcher replays … as attempt 2 (56 of 134 steps were complete)", worded as the notice counts. */
function replayLine(recovery, attempt, totalUnits) {
  const done = recovery.completedUnits;
  const steps =
    totalUnits === null || totalUnits === undefined
      ? `${done} ${done === 1 ? 'step was' : 'steps were'} complete`
      : `${done} of ${totalUnits} steps were complete`;
  return `   the Watcher replays the failed attempt's work from its last recorded step as attempt ${attempt} (${steps})`;
}

/**
 * The failed attempts of one task, printed as `describe(entry)` and, for each recovered one, the
 * replay line. `show(task, ended)` prints those ready and answers whether one still waits for its
 * event (a message after it waits too); `close(waitMs)` lets the stream end, at most that long.
 */
export function retryLines({ client, taskId, describe, onError }) {
  const following = new AbortController();
  const { recoveries, done } = followRecoveries(client, taskId, following.signal);
  const ended = done.catch(onError);
  let shown = 0;
  return {
    show(task, final) {
      const ready = nextRetries(task, recoveries, shown, final);
      for (const { entry, recovery } of ready) {
        line(yellow(describe(entry)));
        if (recovery) line(yellow(replayLine(recovery, entry.attempt + 1, task.totalUnits)));
      }
      shown += ready.length;
      return shown < task.retryHistory.length;
    },
    async close(waitMs) {
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, waitMs))]);
      following.abort();
    },
  };
}
