/** The ten task states, in the canonical order scripts receive their index keys. */
export const TASK_STATUSES = [
  'queued',
  'running',
  'waiting_on_tool',
  'waiting_on_human',
  'paused',
  'verifying',
  'retrying',
  'completed',
  'failed',
  'cancelled',
] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

export function isTaskStatus(value: string): value is TaskStatus {
  return (TASK_STATUSES as readonly string[]).includes(value);
}
