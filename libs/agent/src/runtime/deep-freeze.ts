/**
 * Freezes a value and everything reachable from it (a kind's plan: its steps' arguments are handed
 * to tools in every later slice, so none may change them). Already frozen parts are not walked again.
 */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    // for…in, not Object.values: no array per object (a plan holds two objects a step).
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
