import 'reflect-metadata';
import { Type, plainToInstance } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsString, ValidateBy, ValidateNested, validateSync } from 'class-validator';
import { InvalidTaskInputError } from '@vigil/tasks';
import {
  boundedProblems,
  depthProblem,
  jsonDepth,
  MAX_JSON_DEPTH,
  MAX_PROBLEM_LENGTH,
  MAX_PROBLEMS,
  validateBounded,
  validateKindInput,
} from '@vigil/kinds';
import { campaignBuildKind } from './campaign-build/campaign-build.kind';

let elementChecks = 0;

class Item {
  @ValidateBy({
    name: 'counted',
    validator: {
      validate: () => {
        elementChecks += 1;
        return false;
      },
    },
  })
  @IsString()
  name!: string;
}

class Holder {
  @IsArray()
  @ArrayMaxSize(3)
  @ValidateBy({
    name: 'seesLength',
    validator: {
      validate: (value) => !Array.isArray(value) || value.length < 1000,
      defaultMessage: (args) => `${args?.property} holds ${(args?.value as unknown[]).length} items`,
    },
  })
  @ValidateNested({ each: true })
  @Type(() => Item)
  items!: Item[];
}

class Outer {
  @ValidateNested()
  @Type(() => Holder)
  holder!: Holder;
}

function problemsOf(input: unknown): string[] {
  try {
    validateKindInput(campaignBuildKind, input);
  } catch (error) {
    if (error instanceof InvalidTaskInputError) return error.problems;
    throw error;
  }
  throw new Error('input was accepted');
}

const adAccount = { adAccountId: 'act_1', pageId: '1' };

describe('bounded validation', () => {
  beforeEach(() => {
    elementChecks = 0;
  });

  it('measures nesting without recursion, however deep', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? { a: deep } : [deep];
    expect(jsonDepth(deep)).toBeGreaterThan(MAX_JSON_DEPTH);
    expect(depthProblem(deep, 'the request body')).toBe(
      `the request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays are accepted`,
    );
    expect(jsonDepth('text')).toBe(0);
    expect(jsonDepth({ a: [1, { b: null }] })).toBe(3);
    expect(depthProblem({ a: [1, { b: null }] }, 'input')).toBeNull();
  });

  it('never validates the elements of an array over its bound, while the array’s own rules still answer', () => {
    const plain = { holder: { items: Array.from({ length: 5000 }, () => ({ name: 'x' })) } };
    const errors = validateBounded(plainToInstance(Outer, plain));
    expect(elementChecks).toBe(0);
    const [holder] = errors;
    expect(holder.property).toBe('holder');
    expect(holder.children?.[0].constraints).toEqual({
      arrayMaxSize: 'items must contain no more than 3 elements',
      seesLength: 'items holds 5000 items',
    });
    expect(holder.children?.[0].children).toEqual([]);
    // Without the bound, class-validator visits every element.
    validateSync(plainToInstance(Outer, plain));
    expect(elementChecks).toBe(5000);
  });

  it('validates the elements of arrays within their bound as before', () => {
    const errors = validateBounded(
      plainToInstance(Outer, { holder: { items: [{ name: 'x' }, { name: 1 }] } }),
    );
    expect(elementChecks).toBe(2);
    expect(
      errors[0].children?.[0].children?.map((e) => Object.keys(e.children?.[0].constraints ?? {})),
    ).toEqual([['counted'], ['isString', 'counted']]);
  });

  it('answers a campaign build with 100,000 ad sets with one problem', () => {
    const input = {
      ...adAccount,
      campaigns: [
        { name: 'c', objective: 'OUTCOME_TRAFFIC', adSets: Array.from({ length: 100_000 }, () => ({})) },
      ],
    };
    expect(problemsOf(input)).toEqual(['input.campaigns[0].adSets must contain no more than 50 elements']);
  });

  it('reports at most 20 problems for an input with thousands', () => {
    const input = {
      ...adAccount,
      campaigns: Array.from({ length: 10 }, (_, c) => ({
        name: `c${c}`,
        objective: 'OUTCOME_TRAFFIC',
        adSets: Array.from({ length: 50 }, () => ({ ads: [{}] })),
      })),
    };
    const problems = problemsOf(input);
    expect(problems).toHaveLength(MAX_PROBLEMS);
    expect(problems[0]).toMatch(/^input\.campaigns\[0\]\.adSets\[0\]\./);
    expect(problems.at(-1)).toBe('further problems are not listed');
  });

  it('cuts long problems and keeps short lists as they are', () => {
    expect(boundedProblems(['a', 'b'])).toEqual(['a', 'b']);
    const [long] = boundedProblems(['x'.repeat(10_000)]);
    expect(long).toHaveLength(MAX_PROBLEM_LENGTH);
    expect(long.endsWith('…')).toBe(true);
  });
});
