import { ToolCallError } from '../tool-gateway';

/** `{{name}}`: a call's argument, or `idempotencyKey` (docs/missions.md, "Tools from outside"). */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/;

export type TemplateValues = Record<string, unknown>;

function valueOf(values: TemplateValues, name: string, where: string): unknown {
  if (!(name in values) || values[name] === undefined) {
    throw new ToolCallError(`${where}: {{${name}}} has no value (not an argument of this call)`);
  }
  return values[name];
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Fills `{{name}}` in a URL, each value URL-encoded; says which names it used. */
export function fillUrl(
  template: string,
  values: TemplateValues,
  where: string,
): { url: string; used: Set<string> } {
  const used = new Set<string>();
  const url = template.replace(PLACEHOLDER, (_match, name: string) => {
    used.add(name);
    return encodeURIComponent(asText(valueOf(values, name, where)));
  });
  return { url, used };
}

/**
 * Fills a lookup's `arguments`: a string that is exactly `{{name}}` becomes the value itself (a
 * number stays a number), a placeholder inside a longer string is replaced by its text.
 */
export function fillArguments(template: unknown, values: TemplateValues, where: string): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(template);
    if (whole) return valueOf(values, whole[1], where);
    return template.replace(PLACEHOLDER, (_match, name: string) => asText(valueOf(values, name, where)));
  }
  if (Array.isArray(template)) return template.map((item) => fillArguments(item, values, where));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(
      Object.entries(template).map(([key, value]) => [key, fillArguments(value, values, where)]),
    );
  }
  return template;
}
