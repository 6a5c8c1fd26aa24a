import { createHash } from 'node:crypto';
import { ObjectKeys } from '@vigil/object-store';
import { MemoryObjectStore } from '@vigil/testing';
import { OUTPUT_PREVIEW_BYTES, OutputClaimCheck } from './output-claim-check';
import type { ToolOutcome } from './tool-executor';

describe('OutputClaimCheck', () => {
  const task = { id: 'tsk_claim', tenantId: 'acme' };
  const limit = 4096;
  let store: MemoryObjectStore;
  let check: OutputClaimCheck;
  beforeEach(() => {
    store = new MemoryObjectStore();
    check = new OutputClaimCheck(store, { maxInlineOutputBytes: limit });
  });
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const big = { rows: Array.from({ length: 400 }, (_, i) => ({ i, text: `row ${i} of a long answer` })) };

  it('leaves a result within the bound as it is, its JSON kept for the ledger, and stores nothing', async () => {
    const outcome: ToolOutcome = { key: 'k', ok: true, result: { small: 'x'.repeat(limit - 20) } };
    const bounded = await check.bound(outcome, task);
    expect(bounded.result).toEqual({ small: 'x'.repeat(limit - 20) });
    expect(bounded.resultJson).toBe(JSON.stringify(outcome.result));
    expect(bounded.shown).toBeUndefined();
    expect(store.keys()).toEqual([]);
  });

  it('counts bytes, not characters: a result of few characters but many bytes is stored', async () => {
    const result = '€'.repeat(2000); // 2002 characters of JSON, 6002 bytes
    const bounded = await check.bound({ key: 'k', ok: true, result }, task);
    expect(bounded.result).toMatchObject({ stored: { bytes: 6002 } });
  });

  it('stores a larger result whole by its hash under the task, and records a small reference instead', async () => {
    const json = JSON.stringify(big);
    const bounded = await check.bound({ key: 'rows:{}', ok: true, result: big }, task);
    const id = sha(json);
    const key = ObjectKeys.artifact('acme', 'tsk_claim', id);
    expect(store.keys()).toEqual([key]);
    expect((await store.get(key))!.toString()).toBe(json);
    expect(store.contentTypeOf(key)).toBe('application/json');
    expect(bounded.result).toEqual({
      stored: {
        id,
        bytes: json.length,
        mimeType: 'application/json',
        preview: json.slice(0, OUTPUT_PREVIEW_BYTES),
      },
    });
    expect(bounded.resultJson).toBeUndefined();
    expect(bounded.key).toBe('rows:{}');
    // The model reads the preview and a line naming the whole output's size and where it is.
    expect(bounded.shown).toBe(
      `${json.slice(0, OUTPUT_PREVIEW_BYTES)}\n[output truncated: the whole output (${json.length} bytes) is stored as artifact ${id}; read_output {"key":"rows:{}"} returns it whole]`,
    );
    // read_output reads it back whole, from the store.
    expect(await check.whole(bounded.result, task)).toEqual(big);
    expect(await check.whole({ plain: 1 }, task)).toEqual({ plain: 1 });
    await store.delete(key);
    await expect(check.whole(bounded.result, task)).rejects.toThrow(/missing from the object store/);
  });

  it("replaces a write's journalled result too, and shows the start of the tool's own text", async () => {
    const journal = { state: 'done' as const, attempt: 1, at: 1, result: big };
    const shown = 'line\n'.repeat(2000);
    const bounded = await check.bound({ key: 'w', ok: true, result: big, shown, journal }, task);
    expect(bounded.journal).toEqual({ ...journal, result: bounded.result });
    expect(bounded.shown!.startsWith(shown.slice(0, OUTPUT_PREVIEW_BYTES))).toBe(true);
    expect(bounded.shown!.length).toBeLessThan(OUTPUT_PREVIEW_BYTES + 200);
  });

  it('cuts the preview on a character boundary', async () => {
    const result = `${'a'.repeat(OUTPUT_PREVIEW_BYTES - 2)}😀${'b'.repeat(limit)}`;
    const bounded = await check.bound({ key: 'k', ok: true, result }, task);
    const { preview } = (bounded.result as { stored: { preview: string } }).stored;
    expect(preview).toBe(`"${'a'.repeat(OUTPUT_PREVIEW_BYTES - 2)}`);
    expect(preview).not.toContain('\uFFFD');
  });

  it('turns a read whose large output cannot be stored into a failed step, saying why', async () => {
    store.failure = 'connection refused';
    const bounded = await check.bound({ key: 'k', ok: true, result: big }, task);
    expect(bounded).toEqual({
      key: 'k',
      ok: false,
      error: expect.stringMatching(
        /output \(\d+ bytes\) is larger than MAX_INLINE_OUTPUT_BYTES \(4096\).*connection refused/,
      ),
    });
  });

  it('records a made write whose large output cannot be stored with its start only, never as a failure', async () => {
    store.failure = 'connection refused';
    const journal = { state: 'done' as const, attempt: 1, at: 1, result: big };
    const bounded = await check.bound({ key: 'w', ok: true, result: big, journal }, task);
    expect(bounded.ok).toBe(true);
    expect(bounded.result).toEqual({
      truncated: {
        bytes: JSON.stringify(big).length,
        mimeType: 'application/json',
        preview: JSON.stringify(big).slice(0, OUTPUT_PREVIEW_BYTES),
        reason: expect.stringContaining('connection refused'),
      },
    });
    expect(bounded.journal!.result).toEqual(bounded.result);
    expect(bounded.shown).toContain('the write was made');
  });

  it('leaves a failed call and a result-less one alone', async () => {
    const failed: ToolOutcome = { key: 'k', ok: false, error: 'x'.repeat(limit * 2) };
    expect(await check.bound(failed, task)).toBe(failed);
    const empty: ToolOutcome = { key: null, ok: true };
    expect(await check.bound(empty, task)).toBe(empty);
  });
});
