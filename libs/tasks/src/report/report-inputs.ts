import type { SteerInstruction } from '../steering/steering.types';
import type { ActionRecord, JournalEntry } from '../history/history.types';
import type { TaskRecord } from '../task.types';

/** Everything a report is built from: the record and what the runtime recorded beside it. */
export interface ReportInputs {
  task: TaskRecord;
  /** As stored; each is read with `readFinding`, whatever shape it was recorded in. */
  findings: readonly unknown[];
  actions: readonly ActionRecord[];
  journal: ReadonlyMap<string, JournalEntry>;
  /** PUBLIC_BASE_URL: the findings' artifact links are absolute from it (relative without). */
  publicBaseUrl?: string;
  /** The instructions given while it ran, oldest first (docs/api.md, "Steering"). */
  steering?: readonly SteerInstruction[];
}
