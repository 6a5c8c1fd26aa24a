import { deepFreeze } from './deep-freeze';

describe('deepFreeze', () => {
  it('freezes every object and array reachable from the value, and returns it', () => {
    const plan = [{ key: 'step:0', tool: 'noop_step', args: { index: 0, tags: ['a', { deep: true }] } }];
    expect(deepFreeze(plan)).toBe(plan);
    const [step] = plan;
    for (const part of [plan, step, step.args, step.args.tags, step.args.tags[1]])
      expect(Object.isFrozen(part)).toBe(true);
    expect(() => {
      (step.args as { index: number }).index = 5;
    }).toThrow(TypeError);
    expect(step.args.index).toBe(0);
  });

  it('leaves primitives and null as they are', () => {
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze('text')).toBe('text');
    expect(deepFreeze(3)).toBe(3);
  });
});
