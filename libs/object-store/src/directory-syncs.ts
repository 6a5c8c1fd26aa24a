const ignore = (): void => undefined;

/**
 * Directory syncs shared by the writes that renamed into one directory meanwhile: a group commit.
 * A caller's sync always starts after its call (so after its rename), but the writes that arrive
 * while one runs wait together for the single next one, instead of one open, fsync and close each.
 * A failed sync fails every write that waited on it: each is then refused, as alone.
 */
export class DirectorySyncs {
  private readonly running = new Map<string, Promise<void>>();
  /** The sync that starts when the running one ends: not started yet, so it covers a new caller. */
  private readonly next = new Map<string, Promise<void>>();

  constructor(private readonly syncOnce: (directory: string) => Promise<void>) {}

  sync(directory: string): Promise<void> {
    const queued = this.next.get(directory);
    if (queued) return queued;
    const running = this.running.get(directory);
    if (!running) return this.start(directory);
    const after = running.then(ignore, ignore).then(() => {
      this.next.delete(directory);
      return this.start(directory);
    });
    this.next.set(directory, after);
    return after;
  }

  private start(directory: string): Promise<void> {
    const sync: Promise<void> = this.syncOnce(directory).finally(() => {
      if (this.running.get(directory) === sync) this.running.delete(directory);
    });
    this.running.set(directory, sync);
    return sync;
  }
}
