import { isTaskStatus } from './task-status';
import type { NewTask, TaskRecord } from './task.types';

export const JSON_FIELDS = new Set([
  'input',
  'retryHistory',
  'exitCriteria',
  'verification',
  'result',
  'failure',
  'notify',
  'agent',
  'retryContext',
  'claim',
  'inFlight',
]);

/**
 * Fields as stored in the task hash: strings, with structured values JSON-encoded. The ones every
 * step writes exist from the start, empty as they read when absent, so create-task.lua can place
 * them at the front of the hash (see there).
 */
export function encodeNewTask(id: string, task: NewTask, now: number): Record<string, string> {
  return {
    inFlight: '',
    contextWriter: '',
    contextWriterSeq: '0',
    contextVersion: '0',
    actionsRecorded: '0',
    actionsRecordedAt: '0',
    progressEventAt: '',
    deadlineIndexedAt: '',
    lastHeartbeatAt: '',
    currentStep: '',
    statusReason: '',
    id,
    tenantId: task.tenantId,
    conversationId: task.conversationId ?? '',
    parentId: task.parentId ?? '',
    kind: task.kind,
    title: task.title,
    input: JSON.stringify(task.input),
    status: 'queued',
    attempt: '1',
    activeMs: '0',
    activeSince: String(now),
    model: task.model,
    completedUnits: task.totalUnits === null ? '' : '0',
    totalUnits: task.totalUnits === null ? '' : String(task.totalUnits),
    lastVerifiedStep: '0',
    sliceCount: '0',
    consecutiveErrors: '0',
    retryCount: '0',
    retryHistory: '[]',
    exitCriteria: JSON.stringify(task.exitCriteria),
    budgetUsd: String(task.budgetUsd),
    spentUsd: '0',
    createdAt: String(now),
    updatedAt: String(now),
    codeVersion: task.codeVersion,
    kindVersion: String(task.kindVersion ?? 1),
    sandbox: task.sandbox ? '1' : '0',
    notify: JSON.stringify(task.notify),
    agent: JSON.stringify(task.agent),
  };
}

function optionalNumber(value: string | undefined): number | null {
  return value === undefined || value === '' ? null : Number(value);
}

function optionalString(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

function parseJson(field: string, value: string | undefined): unknown {
  if (value === undefined || value === '') return null;
  try {
    return JSON.parse(value);
  } catch {
    throw new Error(`task field ${field} holds invalid JSON`);
  }
}

export function decodeTask(hash: Record<string, string>): TaskRecord | null {
  if (!hash.id || !hash.status) return null;
  if (!isTaskStatus(hash.status)) throw new Error(`task ${hash.id} has unknown status ${hash.status}`);
  const json = (field: string): unknown => (JSON_FIELDS.has(field) ? parseJson(field, hash[field]) : null);
  return {
    id: hash.id,
    tenantId: hash.tenantId,
    conversationId: optionalString(hash.conversationId),
    parentId: optionalString(hash.parentId),
    kind: hash.kind,
    // A task created before kinds had versions is of version 1, every kind's first.
    kindVersion: Number(hash.kindVersion ?? 1),
    title: hash.title ?? '',
    input: json('input'),
    status: hash.status,
    statusReason: optionalString(hash.statusReason) as TaskRecord['statusReason'],
    attempt: Number(hash.attempt),
    model: hash.model ?? '',
    provider: optionalString(hash.provider) as TaskRecord['provider'],
    currentStep: optionalString(hash.currentStep),
    completedUnits: optionalNumber(hash.completedUnits),
    totalUnits: optionalNumber(hash.totalUnits),
    lastHeartbeatAt: optionalNumber(hash.lastHeartbeatAt),
    inFlight: json('inFlight') as TaskRecord['inFlight'],
    loopLagMs: optionalNumber(hash.loopLagMs),
    lastVerifiedStep: Number(hash.lastVerifiedStep ?? 0),
    sliceCount: Number(hash.sliceCount ?? 0),
    consecutiveErrors: Number(hash.consecutiveErrors ?? 0),
    contextVersion: Number(hash.contextVersion ?? 0),
    steerCount: Number(hash.steerCount ?? 0),
    retryCount: Number(hash.retryCount ?? 0),
    retryHistory: (json('retryHistory') as TaskRecord['retryHistory']) ?? [],
    exitCriteria: (json('exitCriteria') as TaskRecord['exitCriteria']) ?? [],
    verification: json('verification') as TaskRecord['verification'],
    result: json('result'),
    failure: json('failure'),
    budgetUsd: Number(hash.budgetUsd ?? 0),
    spentUsd: Number(hash.spentUsd ?? 0),
    createdAt: Number(hash.createdAt),
    startedAt: optionalNumber(hash.startedAt),
    updatedAt: Number(hash.updatedAt),
    finishedAt: optionalNumber(hash.finishedAt),
    activeMs: Number(hash.activeMs ?? 0),
    activeSince: optionalNumber(hash.activeSince),
    lastUserUpdateAt: optionalNumber(hash.lastUserUpdateAt),
    recoveryOwner: optionalString(hash.recoveryOwner),
    recoveryLeaseExpiresAt: optionalNumber(hash.recoveryLeaseExpiresAt),
    codeVersion: hash.codeVersion ?? '',
    sandbox: hash.sandbox === '1',
    notify: (json('notify') as TaskRecord['notify']) ?? {},
    agent: (json('agent') as TaskRecord['agent']) ?? {},
    workerId: optionalString(hash.workerId),
    retryContext: json('retryContext') as TaskRecord['retryContext'],
    claim: json('claim') as TaskRecord['claim'],
    humanQuestion: optionalString(hash.humanQuestion),
    humanInput: optionalString(hash.humanInput),
    humanToken: optionalString(hash.humanToken),
    humanDeadlineAt: optionalNumber(hash.humanDeadlineAt),
    archived: hash.archived === '1',
    children: hash.childrenTotal
      ? {
          total: Number(hash.childrenTotal),
          running: Number(hash.childrenRunning ?? 0),
          done: Number(hash.childrenDone ?? 0),
        }
      : null,
  };
}
