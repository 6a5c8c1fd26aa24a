/**
 * The model's live text (`model.delta` events) as whole lines: a delta may end mid-word, so text
 * is held until its line ends, the call changes, or another event is printed.
 */
export class ModelText {
  private callId: string | undefined;
  private pending = '';

  /** Adds a delta; answers the lines it completed. */
  add(callId: string | undefined, text: string): string[] {
    const lines = callId !== this.callId ? this.flush() : [];
    this.callId = callId;
    this.pending += text;
    const parts = this.pending.split('\n');
    this.pending = parts.pop()!;
    return [...lines, ...parts.map((part) => `model: ${part}`)];
  }

  /** The line in progress, if any, ended now. */
  flush(): string[] {
    const rest = this.pending;
    this.pending = '';
    return rest.trim() ? [`model: ${rest}`] : [];
  }
}
