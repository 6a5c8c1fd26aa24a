import type { Response } from 'express';
import type { ArtifactContent } from '@vigil/control';

/**
 * Sends an artifact's bytes as every route that serves one does (docs/api.md, "Artifacts"): a
 * tool's output is untrusted, so `nosniff` always, inline only when the bytes are a PNG, JPEG,
 * WebP or GIF by their magic bytes, and anything else (an SVG, an HTML page) as an attachment
 * under `Content-Security-Policy: sandbox`, so nothing a tool returned ever runs on this origin.
 */
export function sendArtifact(res: Response, { body, contentType, inline, entry }: ArtifactContent): void {
  const extension = (contentType.split('/')[1] ?? 'bin').replace(/[^a-z0-9]/g, '').slice(0, 8) || 'bin';
  const filename = `${entry.id.slice(0, 16)}.${extension}`;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', String(body.length));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // Bytes by hash never change; they are the tenant's own, so no shared cache keeps them.
  res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
  res.setHeader('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename="${filename}"`);
  // Sandboxed: opened anyway, it runs no script, on no origin, and loads nothing.
  if (!inline)
    res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'; frame-ancestors 'none'");
  res.status(200).end(body);
}
