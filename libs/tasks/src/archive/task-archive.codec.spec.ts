import { gunzipSync, gzipSync } from 'node:zlib';
import { ArchiveUnreadableError, decodeArchive, encodeArchive } from './task-archive.codec';
import type { TaskArchivePayload } from './task-archive.types';

const payload: TaskArchivePayload = {
  taskId: 'tsk_1',
  tenantId: 'acme',
  expiredAt: 1_700_000_000_000,
  record: { id: 'tsk_1', status: 'completed', title: 'ünïcode ✓' },
  actions: ['{"step":1}'],
  findings: [],
  messages: ['{"id":"m1"}'],
  outputs: { '1': '"x"' },
  journal: {},
  doneSteps: ['1'],
  children: [],
  report: '# Report\n',
  artifacts: [],
};

describe('task archive codec', () => {
  it('reads back exactly what it wrote, and writes the same bytes for the same payload', () => {
    const bytes = encodeArchive(payload);
    expect(decodeArchive('tsk_1', bytes)).toEqual(payload);
    expect(encodeArchive(payload).equals(bytes)).toBe(true);
  });

  it('writes the document as JSON.stringify writes {format, sha256, payload}', () => {
    const text = gunzipSync(encodeArchive(payload)).toString('utf8');
    const { format, sha256, payload: stored } = JSON.parse(text) as Record<string, unknown>;
    expect(text).toBe(JSON.stringify({ format, sha256, payload: stored }));
  });

  it.each<[string, Buffer, RegExp]>([
    ['not gzip', Buffer.from('plain'), /not a gzipped JSON document/],
    ['another format', gzipSync(JSON.stringify({ format: 'x', sha256: '', payload })), /unknown format "x"/],
    [
      'a changed payload',
      gzipSync(
        JSON.stringify({
          ...JSON.parse(gunzipSync(encodeArchive(payload)).toString()),
          payload: { ...payload, report: 'forged' },
        }),
      ),
      /checksum mismatch/,
    ],
  ])('refuses %s with an error naming the task', (_, bytes, problem) => {
    expect(() => decodeArchive('tsk_1', bytes)).toThrow(ArchiveUnreadableError);
    expect(() => decodeArchive('tsk_1', bytes)).toThrow(/tsk_1/);
    expect(() => decodeArchive('tsk_1', bytes)).toThrow(problem);
  });

  it('refuses an archive of another task', () => {
    expect(() => decodeArchive('tsk_2', encodeArchive(payload))).toThrow(/holds task tsk_1/);
  });
});
