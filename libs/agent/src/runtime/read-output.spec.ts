import { READ_OUTPUT_WINDOW, readOutput } from './read-output';

const asIs = (saved: unknown) => Promise.resolve(saved);

describe('read_output', () => {
  it('answers a short output whole', async () => {
    expect(await readOutput('k', 0, { a: 1 }, asIs)).toEqual({
      key: null,
      ok: true,
      result: { key: 'k', output: { a: 1 } },
    });
  });

  it('reads a long one in windows that end where the next starts, and all of it comes back', async () => {
    const output = { text: 'é"\\'.repeat(4000) };
    const json = JSON.stringify(output);
    let text = '';
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const answer = await readOutput('k', offset, output, asIs);
      const result = answer.result as { nextOffset?: number; totalChars: number };
      expect(result.totalChars).toBe(json.length);
      text += answer.shown!.slice(answer.shown!.indexOf('\n') + 1);
      // A window's shown text stays under the prompt's bound of one result, never cut itself.
      expect(answer.shown!.length).toBeLessThan(8000);
      offset = result.nextOffset;
      if (offset !== undefined) expect(answer.shown).toContain(`read_output {"key":"k","offset":${offset}}`);
    }
    expect(text).toBe(json);
    expect(json.length).toBeGreaterThan(READ_OUTPUT_WINDOW);
  });

  it('reads a claim-checked output through the store, and says when it cannot', async () => {
    const whole = (saved: unknown) =>
      (saved as { stored?: unknown }).stored
        ? Promise.resolve({ all: 'of it' })
        : Promise.reject(new Error('gone'));
    expect((await readOutput('k', 0, { stored: {} }, whole)).result).toEqual({
      key: 'k',
      output: { all: 'of it' },
    });
    expect(await readOutput('k', 0, {}, whole)).toMatchObject({
      ok: false,
      error: expect.stringContaining('gone'),
    });
    expect(await readOutput('k', 99, { a: 1 }, asIs)).toMatchObject({
      ok: false,
      error: expect.stringContaining('past the end'),
    });
  });
});
