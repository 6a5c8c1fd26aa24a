import { scrubSecrets } from '@vigil/platform';
import { ToolCallError } from '../tool-gateway';
import { boundText } from './bounded-text';
import { fillVariables } from './catalog-variables';
import { resolvePointer } from './json-pointer';
import { modelNameOf } from './model-name';
import { canonicalJson, stepKeyOf } from './step-key';
import { fillArguments, fillUrl } from './templates';

describe('tool helpers', () => {
  it('fills ${VAR} at use, registers each value with the scrubber, and names an unset variable', () => {
    const env = { VIGIL_UNIT_TOKEN: 'tok-unit-0042' };
    expect(scrubSecrets('Bearer tok-unit-0042')).toBe('Bearer tok-unit-0042');
    expect(fillVariables('Bearer ${VIGIL_UNIT_TOKEN}', env, 'mcpServers.crm.headers.Authorization')).toBe(
      'Bearer tok-unit-0042',
    );
    expect(scrubSecrets('Bearer tok-unit-0042')).toBe('Bearer [redacted]');
    expect(() => fillVariables('${NOT_THERE}', env, 'httpTools.x.url')).toThrow(
      new ToolCallError('httpTools.x.url: the variable NOT_THERE is not set'),
    );
  });

  it('keys a logical step on canonical arguments, or on the key arguments only', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    const key = stepKeyOf('crm.create_lead', { name: 'Ada', email: 'a@x' }, undefined);
    expect(key).toMatch(/^crm\.create_lead:[0-9a-f]{20}$/);
    expect(stepKeyOf('crm.create_lead', { email: 'a@x', name: 'Ada' }, undefined)).toBe(key);
    expect(stepKeyOf('crm.create_lead', { name: 'Ada', email: 'b@x' }, undefined)).not.toBe(key);
    expect(stepKeyOf('crm.create_lead', { name: 'Ada', email: 'b@x' }, ['name'])).toBe(
      stepKeyOf('crm.create_lead', { name: 'Ada', email: 'a@x' }, ['name']),
    );
    expect(stepKeyOf('crm.other', { name: 'Ada', email: 'a@x' }, undefined)).toMatch(/^crm\.other:/);
  });

  it('names tools for model APIs, hashing only a name that had to be rewritten', () => {
    expect(modelNameOf('files', 'write_file')).toBe('files__write_file');
    expect(modelNameOf(null, 'create_ticket')).toBe('create_ticket');
    const dotted = modelNameOf('web', 'page.open');
    expect(dotted).toMatch(/^web__page_open_[0-9a-f]{8}$/);
    expect(modelNameOf('web', 'page/open')).not.toBe(dotted);
    const long = modelNameOf('server', 't'.repeat(80));
    expect(long).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(long).not.toBe(modelNameOf('server', `${'t'.repeat(79)}u`));
  });

  it('resolves JSON pointers, escapes included, undefined for a missing path', () => {
    const doc = { data: [{ id: 'T-1' }], 'a/b': { '~': 1 }, nothing: null };
    expect(resolvePointer(doc, '/data/0/id')).toBe('T-1');
    expect(resolvePointer(doc, '/a~1b/~0')).toBe(1);
    expect(resolvePointer(doc, '/nothing')).toBeNull();
    expect(resolvePointer(doc, '/data/1')).toBeUndefined();
    expect(resolvePointer(doc, '/data/x')).toBeUndefined();
    expect(resolvePointer(doc, '')).toBe(doc);
  });

  it('fills {{placeholders}}: URL-encoded in URLs, typed in lookup arguments', () => {
    expect(
      fillUrl('https://a.example/t/{{id}}?k={{idempotencyKey}}', { id: 'a/b', idempotencyKey: 'k 1' }, 'x'),
    ).toEqual({
      url: 'https://a.example/t/a%2Fb?k=k%201',
      used: new Set(['id', 'idempotencyKey']),
    });
    expect(
      fillArguments(
        { n: '{{count}}', q: 'id:{{idempotencyKey}}', list: ['{{count}}'] },
        { count: 3, idempotencyKey: 'k' },
        'x',
      ),
    ).toEqual({
      n: 3,
      q: 'id:k',
      list: [3],
    });
    expect(() => fillArguments({ q: '{{missing}}' }, {}, 'crm.create_lead lookup')).toThrow(
      'crm.create_lead lookup: {{missing}} has no value (not an argument of this call)',
    );
  });

  it('bounds text and says how long it was', () => {
    expect(boundText('short', 10)).toBe('short');
    expect(boundText('x'.repeat(12), 10)).toBe(`${'x'.repeat(10)}\n…(truncated, 12 characters in all)`);
  });
});
