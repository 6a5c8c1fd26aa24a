/**
 * What an attempt's loop guard counted before a slice (docs/ARCHITECTURE.md, "Stalls, diagnosed"):
 * each call's count by its `callKey`, and the model calls in a row without progress.
 */
export interface LoopCounts {
  calls: Map<string, number>;
  idleCalls: number;
}
