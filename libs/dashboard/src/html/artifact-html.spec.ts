import type { ArtifactEntry } from '@vigil/tasks';
import { artifactIdsOf, artifactLink, artifactLinks } from './artifact-html';

const entry = (id: string, mimeType: string): ArtifactEntry => ({
  id: id.repeat(64),
  step: 3,
  tool: 'browser.browser_take_screenshot',
  mimeType,
  bytes: 100,
  width: 1280,
  height: 720,
  createdAt: '2026-12-02T08:00:00.000Z',
});

describe('artifacts on the task page', () => {
  it('shows a raster image as a thumbnail that opens the full image', () => {
    const html = artifactLink('tsk_1', entry('a', 'image/png')).html;
    expect(html).toContain(`<img src="/admin/tasks/tsk_1/artifacts/${'a'.repeat(64)}"`);
    expect(html).toContain('target="_blank" rel="noopener noreferrer"');
  });

  it('never shows an SVG or HTML inline: a download link only', () => {
    for (const type of ['image/svg+xml', 'text/html', 'application/octet-stream']) {
      const html = artifactLink('tsk_1', entry('b', type)).html;
      expect(html).not.toContain('<img');
      expect(html).toContain(' download ');
    }
  });

  it('links the ids a result or finding cites, once each, known ones only', () => {
    const known = new Map([['a'.repeat(64), entry('a', 'image/png')]]);
    const ids = artifactIdsOf({
      content: [{ artifact: { id: 'a'.repeat(64) } }, { artifact: { id: 'c'.repeat(64) } }],
    });
    expect(ids).toEqual(['a'.repeat(64), 'c'.repeat(64)]);
    const html = String(artifactLinks('tsk_1', [...ids, ...ids], known));
    expect(html.match(/<img/g)).toHaveLength(1);
    expect(artifactLinks('tsk_1', [], known)).toBe('');
  });
});
