import type { PlanStep } from '@vigil/kinds';
import { artifactIdsIn, withArtifactIds } from './scripted-artifacts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const plan: PlanStep[] = [
  { key: 'k1', tool: 't', args: {} },
  { key: 'k2', tool: 't', args: {} },
];

describe('"$artifacts:N" in a scripted plan', () => {
  it('lists each artifact of a saved output once, in order, ignoring what is not an id', () => {
    const output = [
      { artifact: { id: B } },
      { nested: { artifact: { id: A } } },
      { artifact: { id: B } },
      { artifact: { id: 'x' } },
    ];
    expect(artifactIdsIn(output)).toEqual([B, A]);
    expect(artifactIdsIn(null)).toEqual([]);
  });

  it('replaces array items only, with nothing for a call that saved none or is not in the plan', () => {
    const outputs = new Map<string, unknown>([['k1', { artifact: { id: A } }]]);
    const args = { artifacts: ['$artifacts:1', '$artifacts:2', '$artifacts:9'], title: '$artifacts:1' };
    expect(withArtifactIds(args, plan, outputs)).toEqual({ artifacts: [A], title: '$artifacts:1' });
    const plain = { title: 'x' };
    expect(withArtifactIds(plain, plan, outputs)).toBe(plain);
    expect(withArtifactIds(args, plan, undefined)).toBe(args);
  });
});
