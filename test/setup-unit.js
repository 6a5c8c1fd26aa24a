// The unit tier (*.spec.ts) has no Redis. RedisTestContext refuses to start under
// VIGIL_TEST_TIER=unit, with a message saying to rename the spec to *.int-spec.ts; and REDIS_URL
// points at a closed port, so any other connection made from the config is refused
// (ECONNREFUSED 127.0.0.1:1) instead of quietly reaching a developer's Redis.
process.env.VIGIL_TEST_TIER = 'unit';
process.env.REDIS_URL = 'redis://127.0.0.1:1';
delete process.env.REDLOCK_URLS;
