import { isArtifactId } from '../artifacts/artifact.types';

/**
 * A finding as `record_finding` stores it (docs/missions.md, "Findings"): a title to list it
 * by, a body in words, optional structured data (bounded), and when and in which attempt it was
 * recorded. The report and the findings API are built from these.
 */
export interface Finding {
  title: string;
  body: string;
  data?: unknown;
  /** Ids of the task's artifacts it shows (screenshots): each one in the task's artifact list. */
  artifacts?: string[];
  attempt: number;
  at: number;
}

/** At most this many artifacts per finding. */
export const FINDING_ARTIFACTS = 20;

/** A finding's title is cut to this many characters; an old `{text}` one takes its first line's. */
export const FINDING_TITLE_CHARS = 200;
export const FINDING_BODY_CHARS = 20_000;
/** The most `data` may take, as JSON: a finding is evidence to read, not a store of results. */
export const FINDING_DATA_BYTES = 8 * 1024;
/** How much of an old `{text}` finding becomes its title. */
const LEGACY_TITLE_CHARS = 80;

/**
 * A stored finding in the current shape. Findings recorded before titles existed were `{text,
 * attempt, at}`: they read as title = the text's first 80 characters, body = the text.
 */
export function readFinding(raw: unknown): Finding {
  const record = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : { text: raw };
  const attempt = typeof record.attempt === 'number' ? record.attempt : 0;
  const at = typeof record.at === 'number' ? record.at : 0;
  if (typeof record.title === 'string') {
    const body = typeof record.body === 'string' ? record.body : '';
    const artifacts = Array.isArray(record.artifacts) ? record.artifacts.filter(isArtifactId) : [];
    return {
      title: record.title,
      body,
      ...(record.data !== undefined ? { data: record.data } : {}),
      ...(artifacts.length ? { artifacts } : {}),
      attempt,
      at,
    };
  }
  const text = typeof record.text === 'string' ? record.text : (JSON.stringify(record.text ?? raw) ?? '');
  return { title: text.slice(0, LEGACY_TITLE_CHARS), body: text, attempt, at };
}
