import type { ArtifactEntry } from '@vigil/tasks';
import { markup, SafeHtml } from './escape';
import { DASHBOARD_BASE } from './layout';

/**
 * The only types a page ever shows inline: raster images, which a browser decodes as pixels and
 * never runs. An SVG, HTML or anything else a tool returned is only ever a download link (the
 * route serves it as an attachment, sandboxed): it is never rendered from this origin.
 */
export const RASTER_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** Thumbnails one action row or finding shows at most. */
const THUMBNAILS = 4;

/** The operator's route to an artifact's bytes (the dashboard's own, behind its admin login). */
export function artifactPath(taskId: string, artifactId: string): string {
  return `${DASHBOARD_BASE}/${encodeURIComponent(taskId)}/artifacts/${artifactId}`;
}

/** One artifact: a thumbnail that opens the full image, or a link for anything not raster. */
export function artifactLink(taskId: string, entry: ArtifactEntry): SafeHtml {
  const href = artifactPath(taskId, entry.id);
  const size = entry.width && entry.height ? `${entry.width}×${entry.height}` : `${entry.bytes} bytes`;
  const label = `${entry.mimeType}, ${size}`;
  if (RASTER_TYPES.includes(entry.mimeType))
    return markup`<a class="artifact" href="${href}" target="_blank" rel="noopener noreferrer" title="${label} — open the full image"><img src="${href}" alt="${entry.tool} #${entry.step} (${label})" loading="lazy" data-artifact="${entry.id}"></a>`;
  return markup`<a class="artifact file" href="${href}" rel="noopener noreferrer" download data-artifact="${entry.id}">${label}</a>`;
}

/** The artifacts of ids, in order, each once, as the list knows them (an unknown id is left out). */
export function artifactLinks(
  taskId: string,
  ids: readonly string[],
  known: ReadonlyMap<string, ArtifactEntry>,
): SafeHtml | string {
  const entries = [...new Set(ids)].flatMap((id) => known.get(id) ?? []);
  if (entries.length === 0) return '';
  const more = entries.length - THUMBNAILS;
  return markup`<span class="artifacts">${entries.slice(0, THUMBNAILS).map((entry) => artifactLink(taskId, entry))}${more > 0 ? ` +${more}` : ''}</span>`;
}

/** The artifact ids a recorded result refers to (`{artifact: {id}}` parts), in order. */
export function artifactIdsOf(result: unknown): string[] {
  const ids: string[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (depth > 6 || !value || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((item) => walk(item, depth + 1));
    const ref = (value as { artifact?: { id?: unknown } }).artifact;
    if (ref && typeof ref.id === 'string') ids.push(ref.id);
    for (const item of Object.values(value)) walk(item, depth + 1);
  };
  walk(result, 0);
  return ids;
}
