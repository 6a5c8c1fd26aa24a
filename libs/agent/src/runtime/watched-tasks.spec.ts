import { WATCH_CHECK_INTERVAL_MS, WatchedTasks } from './watched-tasks';

/** Answers lookups only when the test says so, counting them. */
class Lookups {
  readonly asked: string[] = [];
  private readonly pending: ((watched: boolean) => void)[] = [];
  isWatched(taskId: string): Promise<boolean> {
    this.asked.push(taskId);
    return new Promise((resolve) => this.pending.push(resolve));
  }
  answer(watched: boolean): void {
    for (const resolve of this.pending.splice(0)) resolve(watched);
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('WatchedTasks: a task’s watch mark, looked up at most once an interval', () => {
  it('counts a task as unwatched until the first answer, then answers from it', async () => {
    const lookups = new Lookups();
    const watched = new WatchedTasks(lookups);
    expect(watched.watched('t1', 1_000)).toBe(false);
    expect(watched.watched('t1', 1_001)).toBe(false);
    expect(lookups.asked).toEqual(['t1']);
    lookups.answer(true);
    await settle();
    expect(watched.watched('t1', 1_002)).toBe(true);
    expect(lookups.asked).toEqual(['t1']);
  });

  it('looks again once the interval has passed, answering from the last answer meanwhile', async () => {
    const lookups = new Lookups();
    const watched = new WatchedTasks(lookups);
    watched.watched('t1', 0);
    lookups.answer(true);
    await settle();
    expect(watched.watched('t1', WATCH_CHECK_INTERVAL_MS - 1)).toBe(true);
    expect(lookups.asked).toHaveLength(1);
    expect(watched.watched('t1', WATCH_CHECK_INTERVAL_MS)).toBe(true);
    expect(lookups.asked).toHaveLength(2);
    lookups.answer(false);
    await settle();
    expect(watched.watched('t1', WATCH_CHECK_INTERVAL_MS + 1)).toBe(false);
  });

  it('keeps its last answer when a lookup fails', async () => {
    const watched = new WatchedTasks({ isWatched: () => Promise.reject(new Error('LOADING')) });
    expect(watched.watched('t1', 0)).toBe(false);
    await settle();
    expect(watched.watched('t1', 1)).toBe(false);
  });
});
