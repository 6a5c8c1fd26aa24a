import { defineCheck } from '@vigil/kinds';
import type { ArtifactEntry } from '@vigil/tasks';
import type { MissionInput } from '../mission.input';
import { COUNTED_EXPECTATION, countedResult, unknownArguments } from './counting-check';

const ARGS = ['tool', 'mimeType', 'nameContains'] as const;
const MAX_ARG_CHARS = 200;

type ArtifactFilter = Partial<Record<(typeof ARGS)[number], string>>;

/** The tool as the task names it (`browser.take_screenshot`) or as models see it (`browser__take_screenshot`). */
const sameTool = (listed: string, wanted: string) =>
  listed === wanted || listed.replace('.', '__') === wanted.replace('.', '__');

/** `image/png` matches itself; `image/*` any image. */
const sameType = (listed: string, wanted: string) =>
  wanted.endsWith('/*') ? listed.startsWith(wanted.slice(0, -1)) : listed === wanted.toLowerCase();

function matches(entry: ArtifactEntry, filter: ArtifactFilter): boolean {
  return (
    (!filter.tool || sameTool(entry.tool, filter.tool)) &&
    (!filter.mimeType || sameType(entry.mimeType, filter.mimeType)) &&
    (!filter.nameContains || (entry.name ?? '').includes(filter.nameContains))
  );
}

/**
 * `artifact_exists {expected: n, args?: {tool?, mimeType?, nameContains?}}` (docs/api.md,
 * "Artifacts"): the task's artifact list — which the runtime writes as it stores what tools
 * returned, never the model — holds at least n distinct artifacts (by id) matching every argument
 * given: from that tool, of that type (`image/*` for any image), with that text in its name.
 */
export const artifactExistsCheck = defineCheck<MissionInput>(
  {
    reads: ['artifacts'],
    ...COUNTED_EXPECTATION,
    validateArgs: (args) => {
      if (args === undefined) return [];
      const problems = unknownArguments('artifact_exists', args, ARGS);
      for (const name of ARGS) {
        const value = args[name];
        if (
          value !== undefined &&
          (typeof value !== 'string' || value.length === 0 || value.length > MAX_ARG_CHARS)
        )
          problems.push(`args.${name} must be a string of 1 to ${MAX_ARG_CHARS} characters`);
      }
      return problems;
    },
  },
  async (criterion, context) => {
    const filter = (criterion.args ?? {}) as ArtifactFilter;
    const ids = new Set(
      (context.artifacts ?? []).filter((entry) => matches(entry, filter)).map((entry) => entry.id),
    );
    const described = Object.entries(filter)
      .map(([name, value]) => `${name} ${JSON.stringify(value)}`)
      .join(', ');
    return countedResult(
      criterion,
      ids.size,
      (expected) =>
        `${ids.size} artifact${ids.size === 1 ? '' : 's'}${described ? ` with ${described}` : ''} kept, ${expected} needed`,
    );
  },
);
