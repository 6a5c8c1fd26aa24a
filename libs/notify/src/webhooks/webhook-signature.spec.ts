import { signWebhook, verifyWebhookSignature } from './webhook-signature';

describe('webhook signatures (the receiver helper)', () => {
  const secret = 'whsec-test-secret';
  const body = JSON.stringify({ id: 'tsk_a-ev-1-0', text: 'Your task is complete.' });
  const t = 1_700_000_000;
  const now = t * 1000;

  it('verifies what it signed, from a string or the raw bytes', () => {
    const header = signWebhook(body, secret, t);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(header, body, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(header, Buffer.from(body), secret, { now })).toBe(true);
  });

  it('fails a tampered body, another secret, or a garbled header', () => {
    const header = signWebhook(body, secret, t);
    expect(verifyWebhookSignature(header, body.replace('complete', 'failed'), secret, { now })).toBe(false);
    expect(verifyWebhookSignature(header, body, 'another-secret', { now })).toBe(false);
    for (const garbled of ['', 't=abc,v1=00', `v1=${'a'.repeat(64)}`, `t=${t}`, header.replace(/.$/, 'x')]) {
      expect(verifyWebhookSignature(garbled, body, secret, { now })).toBe(false);
    }
    expect(verifyWebhookSignature(undefined, body, secret, { now })).toBe(false);
  });

  it('fails a timestamp older (or further ahead) than the 5-minute tolerance', () => {
    const header = signWebhook(body, secret, t);
    expect(verifyWebhookSignature(header, body, secret, { now: now + 299_000 })).toBe(true);
    expect(verifyWebhookSignature(header, body, secret, { now: now + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(header, body, secret, { now: now - 301_000 })).toBe(false);
    expect(verifyWebhookSignature(header, body, secret, { now: now + 301_000, toleranceSec: 600 })).toBe(
      true,
    );
  });

  it('accepts any one matching v1 (secret rotation)', () => {
    const current = signWebhook(body, secret, t).split(',')[1];
    const old = signWebhook(body, 'old-secret', t).split(',')[1];
    expect(verifyWebhookSignature(`t=${t},${old},${current}`, body, secret, { now })).toBe(true);
  });
});
