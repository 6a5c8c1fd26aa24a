import { clusterSlot } from './cluster-slot';

describe('clusterSlot', () => {
  it('matches the slots Redis Cluster documents', () => {
    // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
    expect(clusterSlot('123456789')).toBe(12739);
    expect(clusterSlot('foo')).toBe(12182);
    expect(clusterSlot('{user1000}.following')).toBe(clusterSlot('{user1000}.followers'));
    expect(clusterSlot('foo{}{bar}')).toBe(clusterSlot('foo{}{bar}'));
    expect(clusterSlot('{}foo')).not.toBe(clusterSlot('foo'));
  });
});
