import { clusterSlot } from './cluster-slot';

describe('clusterSlot', () => {
  it('matches the slots Redis Cluster documents', () => {
    // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
    expect(clusterSlot('123456789')).toBe(12739);
    expect(clusterSlot('foo')).toBe(12182);
    expect(clusterSlot('{user1000}.following')).toBe(clusterSlot('{user1000}.followers'));
    // The specification's examples: the first non-empty {…} is the tag; an empty one means none.
    expect(clusterSlot('foo{bar}{zap}')).toBe(clusterSlot('bar'));
    expect(clusterSlot('foo{{bar}}zap')).toBe(clusterSlot('{bar'));
    expect(clusterSlot('foo{}{bar}')).not.toBe(clusterSlot('bar'));
    expect(clusterSlot('{}foo')).not.toBe(clusterSlot('foo'));
  });
});
