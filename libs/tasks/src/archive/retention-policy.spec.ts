import type { ToolCatalog } from '@vigil/config';
import { RetentionPolicy } from './retention-policy';

const catalog = {
  tenants: {
    keepLong: { allow: [], retention: { completedMs: 90_000, failedMs: 900_000 } },
    failedOnly: { allow: [], retention: { failedMs: 0 } },
  },
} as unknown as ToolCatalog;

describe('RetentionPolicy', () => {
  const policy = new RetentionPolicy(
    { taskRetentionMs: 1_000, failedTaskRetentionMs: 2_000 },
    { toolCatalog: catalog },
  );

  it.each<[string, 'completed' | 'cancelled' | 'failed', number]>([
    ['acme', 'completed', 1_000],
    ['acme', 'cancelled', 1_000],
    ['acme', 'failed', 2_000],
    ['keepLong', 'completed', 90_000],
    ['keepLong', 'cancelled', 90_000],
    ['keepLong', 'failed', 900_000],
    ['failedOnly', 'completed', 1_000],
    ['failedOnly', 'failed', 0],
  ])('keeps a task of %s that ended %s for %d ms', (tenant, status, ms) => {
    expect(policy.retentionMs(tenant, status)).toBe(ms);
  });

  it('uses the defaults when there is no catalog', () => {
    const plain = new RetentionPolicy(
      { taskRetentionMs: 5, failedTaskRetentionMs: 6 },
      { toolCatalog: undefined },
    );
    expect([plain.retentionMs('x', 'completed'), plain.retentionMs('x', 'failed')]).toEqual([5, 6]);
  });
});
