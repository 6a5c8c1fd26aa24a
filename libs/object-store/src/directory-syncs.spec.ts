import { DirectorySyncs } from './directory-syncs';

/** A sync the test ends by hand, recording when each one started. */
function controlledSyncs() {
  const started: { directory: string; end: (error?: Error) => void }[] = [];
  const syncs = new DirectorySyncs(
    (directory) =>
      new Promise<void>((resolve, reject) => {
        started.push({ directory, end: (error) => (error ? reject(error) : resolve()) });
      }),
  );
  return { syncs, started };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('DirectorySyncs', () => {
  it('starts a sync at once when none runs', async () => {
    const { syncs, started } = controlledSyncs();
    const done = syncs.sync('/a');
    expect(started.map((s) => s.directory)).toEqual(['/a']);
    started[0].end();
    await expect(done).resolves.toBeUndefined();
  });

  it('gives the callers that arrive during a sync one shared sync that starts after it', async () => {
    const { syncs, started } = controlledSyncs();
    const first = syncs.sync('/a');
    const second = syncs.sync('/a');
    const third = syncs.sync('/a');
    expect(started).toHaveLength(1);
    let secondDone = false;
    void second.then(() => (secondDone = true));
    started[0].end();
    await first;
    await settle();
    // The running sync may have begun before their renames: they wait for the next one.
    expect(secondDone).toBe(false);
    expect(started).toHaveLength(2);
    started[1].end();
    await Promise.all([second, third]);
    expect(started).toHaveLength(2);
  });

  it('keeps directories apart', () => {
    const { syncs, started } = controlledSyncs();
    void syncs.sync('/a');
    void syncs.sync('/b');
    expect(started.map((s) => s.directory)).toEqual(['/a', '/b']);
  });

  it('fails every caller that waited on a failed sync, and starts afresh after it', async () => {
    const { syncs, started } = controlledSyncs();
    const first = syncs.sync('/a');
    const second = syncs.sync('/a');
    started[0].end(new Error('EIO'));
    await expect(first).rejects.toThrow('EIO');
    await settle();
    started[1].end(new Error('EIO again'));
    await expect(second).rejects.toThrow('EIO again');
    const third = syncs.sync('/a');
    expect(started).toHaveLength(3);
    started[2].end();
    await expect(third).resolves.toBeUndefined();
  });
});
