import { parseBuiltin } from './builtin-tools';

describe('built-in arguments', () => {
  const id = 'a'.repeat(64);

  it('record_finding takes artifact ids, once each, in form', () => {
    expect(parseBuiltin('record_finding', { title: 't', body: 'b', artifacts: [id, id] }, 1, 5)).toEqual({
      tool: 'record_finding',
      finding: { title: 't', body: 'b', artifacts: [id], attempt: 1, at: 5 },
    });
    expect(() =>
      parseBuiltin('record_finding', { title: 't', body: 'b', artifacts: ['shot.png'] }, 1),
    ).toThrow(/artifact ids/);
    expect(() =>
      parseBuiltin('record_finding', { title: 't', body: 'b', artifacts: Array(21).fill(id) }, 1),
    ).toThrow(/at most 20/);
  });

  it('read_output takes an offset, 0 by default', () => {
    expect(parseBuiltin('read_output', { key: 'k' }, 1)).toEqual({
      tool: 'read_output',
      key: 'k',
      offset: 0,
    });
    expect(parseBuiltin('read_output', { key: 'k', offset: 3500 }, 1)).toMatchObject({ offset: 3500 });
    expect(() => parseBuiltin('read_output', { key: 'k', offset: -1 }, 1)).toThrow(/offset/);
  });
});
