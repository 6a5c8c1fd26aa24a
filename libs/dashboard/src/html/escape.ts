const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text or attribute value made inert in HTML: every value the dashboard prints passes here. */
export function escapeHtml(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]);
}

/** Markup that is already safe: built by `markup`, so its values were escaped. */
export class SafeHtml {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | SafeHtml[];

/**
 * A tagged template whose interpolations are escaped, unless they are SafeHtml themselves (or
 * lists of it); `false` prints nothing. Named `markup`, not `html`: prettier reformats templates
 * tagged `html` as HTML, which would put whitespace into the text of cells the pages and their
 * tests read.
 */
export function markup(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, i) => {
    if (Array.isArray(value)) out += value.map((part) => part.html).join('');
    else if (value instanceof SafeHtml) out += value.html;
    else if (value !== false) out += escapeHtml(value);
    out += strings[i + 1];
  });
  return new SafeHtml(out);
}
