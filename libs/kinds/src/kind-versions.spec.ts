import { kindVersionOf, runnableVersions, runsVersion, versionProblems } from './kind-versions';
import { KindRegistry } from './kind-registry';
import { defineKind } from './define-kind';
import type { TaskKind } from './task-kind';

const kind = (version?: number, compatibleVersions?: number[]) =>
  defineKind({
    name: 'versioned',
    ...(version !== undefined ? { version } : {}),
    ...(compatibleVersions ? { compatibleVersions } : {}),
    input: { type: 'object', properties: {}, additionalProperties: false },
    instructions: () => 'nothing',
    tools: [],
    checks: {},
  });

describe('kind versions', () => {
  it('puts a kind that declares none at version 1', () => {
    expect(kindVersionOf(kind())).toBe(1);
    expect(runsVersion(kind(), 1)).toBe(true);
    expect(runsVersion(kind(), 2)).toBe(false);
  });

  it('runs its own version and the older ones it declares compatible, no other', () => {
    const v3 = kind(3, [1]);
    expect([1, 2, 3, 4].map((version) => runsVersion(v3, version))).toEqual([true, false, true, false]);
    expect(runnableVersions([v3, { ...kind(), name: 'other' }])).toEqual({ versioned: [3, 1], other: [1] });
  });

  it('refuses a version that is no integer ≥ 1, and compatible versions that are not older', () => {
    expect(versionProblems(kind(0))).toEqual(['version must be an integer ≥ 1']);
    expect(versionProblems(kind(2, [2]))).toEqual(['compatibleVersions must name older versions than 2']);
    expect(versionProblems({ version: 2, compatibleVersions: [1.5] })).toEqual([
      'compatibleVersions must be an array of integers ≥ 1',
    ]);
    expect(versionProblems(kind(2, [1]))).toEqual([]);
  });

  it('stops a registry at load on a bad version, naming the kind', () => {
    expect(() => new KindRegistry([kind(2, [3]) as TaskKind])).toThrow(
      'task kind versioned: compatibleVersions must name older versions than 2',
    );
  });
});
