import { readFinding } from './finding';

describe('readFinding', () => {
  it('reads a finding in the current shape as it is', () => {
    const finding = { title: 'Acme', body: 'raised prices', data: { pct: 5 }, attempt: 2, at: 7 };
    expect(readFinding(finding)).toEqual(finding);
    expect(readFinding({ title: 'Acme', body: 'x', attempt: 1, at: 1 })).not.toHaveProperty('data');
  });

  it('keeps the artifact ids a finding cites, and only ids that are hashes', () => {
    const id = 'c'.repeat(64);
    expect(
      readFinding({ title: 't', body: 'b', artifacts: [id, 'nope', 3], attempt: 1, at: 1 }).artifacts,
    ).toEqual([id]);
    expect(readFinding({ title: 't', body: 'b', artifacts: ['nope'], attempt: 1, at: 1 })).not.toHaveProperty(
      'artifacts',
    );
  });

  it('reads an old {text} finding: title from its first 80 characters, the text as its body', () => {
    const text = `${'Ad set 3 was rejected because its targeting was too narrow for the '.repeat(2)}budget`;
    expect(readFinding({ text, attempt: 1, at: 9 })).toEqual({
      title: text.slice(0, 80),
      body: text,
      attempt: 1,
      at: 9,
    });
    expect(readFinding('a bare string')).toEqual({
      title: 'a bare string',
      body: 'a bare string',
      attempt: 0,
      at: 0,
    });
  });
});
