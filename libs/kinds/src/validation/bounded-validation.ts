import { ARRAY_MAX_SIZE, getMetadataStorage, validateSync, ValidationTypes } from 'class-validator';
import type { ValidationError, ValidatorOptions } from 'class-validator';

/**
 * Validation whose cost and answer stay bounded whatever a request holds (docs/api.md,
 * "Requests and errors"): nesting is measured without recursion before anything recursive touches
 * a value, the elements of an array longer than its declared `@ArrayMaxSize` are never validated
 * one by one, and at most `MAX_PROBLEMS` messages are ever reported.
 */

/** How many problems one answer reports at most. */
export const MAX_PROBLEMS = 20;

/** Objects and arrays nested deeper than this are refused before they are transformed or validated. */
export const MAX_JSON_DEPTH = 64;

/** How deeply objects and arrays nest in `value` (a scalar: 0), counted without recursion; stops past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** The problem with a value nested too deeply, or null. */
export function depthProblem(value: unknown, subject: string, limit = MAX_JSON_DEPTH): string | null {
  return jsonDepth(value, limit) > limit
    ? `${subject} is nested too deeply: at most ${limit} levels of objects and arrays are accepted`
    : null;
}

interface ArrayBound {
  property: string;
  max: number;
}

interface ClassShape {
  bounds: ArrayBound[];
  /** Properties validated as nested objects (or arrays of them). */
  nested: string[];
}

/** A validated class, as class-validator's metadata storage takes it (an instance's `constructor`). */
type ValidatedClass = object['constructor'];

const shapes = new WeakMap<ValidatedClass, ClassShape>();

function shapeOf(target: ValidatedClass): ClassShape {
  let shape = shapes.get(target);
  if (!shape) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
    shape = {
      bounds: metadata
        .filter((m) => m.name === ARRAY_MAX_SIZE && typeof m.constraints?.[0] === 'number')
        .map((m) => ({ property: m.propertyName, max: m.constraints[0] as number })),
      nested: [
        ...new Set(
          metadata.filter((m) => m.type === ValidationTypes.NESTED_VALIDATION).map((m) => m.propertyName),
        ),
      ],
    };
    shapes.set(target, shape);
  }
  return shape;
}

/**
 * What class-validator should see of a transformed instance: the instance itself, or — when an
 * array holds more elements than its `@ArrayMaxSize` — a copy in which that array keeps its length
 * but its elements are blanked (undefined), so `@ArrayMaxSize` and every other rule still answer
 * while none of those elements is validated one by one. Nested instances are visited only inside
 * arrays within their bound, so the walk costs at most what a valid value would.
 */
export function withoutOversizedElements<T extends object>(instance: T): T {
  const shape = shapeOf(instance.constructor);
  const record = instance as Record<string, unknown>;
  const replaced: Record<string, unknown> = {};
  const oversized = new Set<string>();
  for (const { property, max } of shape.bounds) {
    const value = record[property];
    if (!Array.isArray(value) || value.length <= max) continue;
    oversized.add(property);
    replaced[property] = Array.from({ length: value.length }, () => undefined);
  }
  for (const property of shape.nested) {
    if (oversized.has(property)) continue;
    const value = record[property];
    if (Array.isArray(value)) {
      const items = value.map((item: unknown) => (isInstance(item) ? withoutOversizedElements(item) : item));
      if (items.some((item, index) => item !== value[index])) replaced[property] = items;
    } else if (isInstance(value)) {
      const inner = withoutOversizedElements(value);
      if (inner !== value) replaced[property] = inner;
    }
  }
  if (Object.keys(replaced).length === 0) return instance;
  return Object.assign(Object.create(Object.getPrototypeOf(instance) as object) as T, instance, replaced);
}

/** An instance of a validated class (class-transformer built it), not a plain value. */
function isInstance(value: unknown): value is object {
  return typeof value === 'object' && value !== null && value.constructor !== Object && !Array.isArray(value);
}

/** class-validator's `validateSync`, except that oversized arrays' elements are not validated one by one. */
export function validateBounded(instance: object, options?: ValidatorOptions): ValidationError[] {
  return validateSync(withoutOversizedElements(instance), options);
}

/** A problem message longer than this is cut (a repeated name list can make one long). */
export const MAX_PROBLEM_LENGTH = 300;

const OMITTED = 'further problems are not listed';

/** At most `MAX_PROBLEMS` problems, each at most `MAX_PROBLEM_LENGTH` characters; the last says when some were left out. */
export function boundedProblems(problems: readonly string[]): string[] {
  const cut = (text: string): string =>
    text.length <= MAX_PROBLEM_LENGTH ? text : `${text.slice(0, MAX_PROBLEM_LENGTH - 1)}…`;
  if (problems.length <= MAX_PROBLEMS) return problems.map(cut);
  return [...problems.slice(0, MAX_PROBLEMS - 1).map(cut), OMITTED];
}
