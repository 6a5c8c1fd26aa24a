import { assertWebhookTarget, isPrivateAddress } from './webhook-target';

describe('webhook targets (SSRF)', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    'fec0::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::7f00:1',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );

  it.each([
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:169.254.169.254]/latest/meta-data',
    'http://[fec0::1]/',
    'http://127.1/',
    'http://localhost:8080/',
  ])('refuses the URL %s unless private targets are allowed', async (url) => {
    await expect(assertWebhookTarget(url, false)).rejects.toThrow(/private or loopback/);
    await expect(assertWebhookTarget(url, true)).resolves.toBeUndefined();
  });
});
