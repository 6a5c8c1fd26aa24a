import { REDACTED, secretScrubber, secretValues } from './secrets';

describe('secret scrubbing', () => {
  const env = {
    API_KEYS: 'acme:acme-key-123,globex:globex-key-456',
    ANTHROPIC_API_KEY: 'sk-ant-abc"def',
    WEBHOOK_SECRET: 'hook secret/1',
    ADMIN_PASSWORD: 'board-pass',
    REDIS_URL: 'redis://user:p%40ss-word@redis:6379/0',
    METRICS_TOKEN: 'abc',
  };
  const scrub = secretScrubber(secretValues(env));

  it('replaces every API key, not the tenant names', () => {
    expect(scrub('keys acme-key-123 and globex-key-456 of acme')).toBe(
      `keys ${REDACTED} and ${REDACTED} of acme`,
    );
  });

  it('replaces a value in the forms a line carries it: raw, JSON-escaped, URL-encoded', () => {
    expect(scrub('sk-ant-abc"def')).toBe(REDACTED);
    expect(scrub(JSON.stringify({ key: 'sk-ant-abc"def' }))).toBe(`{"key":"${REDACTED}"}`);
    expect(scrub(`?s=${encodeURIComponent('hook secret/1')}`)).toBe(`?s=${REDACTED}`);
  });

  it('replaces the values of the OTLP exporter headers, a backend key among them', () => {
    const values = secretValues({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=hc-key-123456,dataset=vigil-traces',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Basic%20dXNlcjpwYXNz',
    });
    const scrub = secretScrubber(values);
    expect(scrub('sent hc-key-123456 to vigil-traces')).toBe('sent [redacted] to [redacted]');
    expect(scrub('header Basic dXNlcjpwYXNz')).toBe('header [redacted]');
    expect(scrub('x-honeycomb-team')).toBe('x-honeycomb-team');
  });

  it('replaces the Basic credentials of the admin password', () => {
    const basic = Buffer.from('admin:board-pass').toString('base64');
    expect(scrub(`authorization: Basic ${basic}`)).toBe(`authorization: Basic ${REDACTED}`);
  });

  it('removes the credentials of any URL, and the password of REDIS_URL wherever it appears', () => {
    expect(scrub('connecting to redis://user:p%40ss-word@redis:6379/0')).toBe(
      `connecting to redis://${REDACTED}@redis:6379/0`,
    );
    expect(scrub('https://someone:other@example.com/x')).toBe(`https://${REDACTED}@example.com/x`);
    expect(scrub('password was p@ss-word')).toBe(`password was ${REDACTED}`);
  });

  it('leaves values too short to scrub safely, and ordinary text, alone', () => {
    expect(scrub('abc is a word; nothing to hide here')).toBe('abc is a word; nothing to hide here');
    expect(secretScrubber([])('plain')).toBe('plain');
  });
});
