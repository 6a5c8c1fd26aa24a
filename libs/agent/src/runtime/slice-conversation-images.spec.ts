import type { ModelImage } from '../models/model-provider';
import { cutResult, RECENT_TOOL_RESULTS, SliceConversation, TRIM_BATCH } from './slice-conversation';

const image = (i: number): ModelImage => ({
  id: String(i).padStart(64, '0'),
  mimeType: 'image/png',
  width: 10,
  height: 20,
  data: 'AAAA',
});

const conversation = (maxImages: number) =>
  new SliceConversation(
    () => ({ system: 's', messages: [{ role: 'user', content: 'open', cacheBreakpoint: true }] }),
    {
      maxImages,
    },
  );

const step = (c: SliceConversation, i: number, images = [image(i)]) => {
  const call = { id: `t${i}`, name: 'shot', args: { i } };
  c.assistant('', [call]);
  c.toolResult(call, true, `shot ${i}`, `shot:${i}`, images);
};

const shownIds = (c: SliceConversation) =>
  c
    .request([], new AbortController().signal)
    .messages.flatMap((m) => (m.role === 'tool' ? (m.images ?? []) : []))
    .map((img) => Number(img.id));

describe('images in a slice conversation', () => {
  it('keeps at most maxImages, the newest, dropping to half the cap in steps', () => {
    const c = conversation(4);
    const seen: number[][] = [];
    for (let i = 0; i < 9; i++) {
      step(c, i);
      seen.push(shownIds(c));
    }
    expect(seen).toEqual([
      [0],
      [0, 1],
      [0, 1, 2],
      [0, 1, 2, 3],
      [3, 4],
      [3, 4, 5],
      [3, 4, 5, 6],
      [6, 7],
      [6, 7, 8],
    ]);
  });

  it('turns a dropped image into its one-line reference, the same on every later call', () => {
    const c = conversation(2);
    for (let i = 0; i < 3; i++) step(c, i);
    const first = c.request([], new AbortController().signal).messages;
    const dropped = first.find((m) => m.role === 'tool' && m.toolCallId === 't0')!;
    expect(dropped).toMatchObject({
      content: `shot 0\n[image ${image(0).id} image/png 10x20, see artifacts]`,
    });
    expect(dropped).not.toHaveProperty('images');
    const again = c.request([], new AbortController().signal).messages;
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    // A call later: the turns before the new one read exactly as before (the cached prefix holds).
    step(c, 3);
    const later = c.request([], new AbortController().signal).messages;
    expect(JSON.stringify(later.slice(0, 5))).toBe(JSON.stringify(first.slice(0, 5)));
  });

  it('shows no image with maxImages 0, and keeps the newest of one result with many', () => {
    const none = conversation(0);
    step(none, 0);
    expect(shownIds(none)).toEqual([]);
    const many = conversation(3);
    step(many, 0, [image(1), image(2), image(3), image(4), image(5)]);
    expect(shownIds(many)).toEqual([4, 5]);
  });

  it('drops an old result’s images with its text (the turn changes once)', () => {
    const c = conversation(20);
    step(c, 0);
    // Enough results after it that it is trimmed (in the first batch).
    for (let i = 1; i < RECENT_TOOL_RESULTS + TRIM_BATCH; i++) {
      const call = { id: `t${i}`, name: 'read', args: { i } };
      c.assistant('', [call]);
      c.toolResult(call, true, 'page text', `read:${i}`);
    }
    expect(shownIds(c)).toEqual([]);
  });

  it('says a cut result was cut and how to read it whole', () => {
    const c = conversation(3);
    const call = { id: 't', name: 'read', args: {} };
    c.assistant('', [call]);
    c.toolResult(call, true, 'x'.repeat(9000), 'read:{}');
    const [, , result] = c.request([], new AbortController().signal).messages;
    expect(result.content).toBe(cutResult('x'.repeat(9000), 'read:{}'));
    expect(
      result.content.endsWith(
        '[cut: 8000 of 9000 characters shown; read_output {"key":"read:{}"} returns it whole]',
      ),
    ).toBe(true);
  });
});
