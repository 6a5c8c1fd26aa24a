import { Controller, Get, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { storage } from 'nestjs-pino/storage';
import { SECTION_TOKENS, sectionsOf, VIGIL_CONFIG, type SectionName } from '@vigil/config';
import { RedisTestContext } from '@vigil/testing';
import { PlatformModule } from '@vigil/platform';

@Controller('work')
class WorkController {
  @Get()
  work(): { ok: true } {
    return { ok: true };
  }
}

describe('PlatformModule', () => {
  const ctx = new RedisTestContext('platform');
  let app: INestApplication;
  let base: string;
  const run = jest.spyOn(storage, 'run');

  beforeAll(async () => {
    @Module({ imports: [PlatformModule.forRoot(ctx.config, 'test')], controllers: [WorkController] })
    class TestModule {}
    app = await NestFactory.create(TestModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    run.mockRestore();
    await app.close();
    await ctx.close();
  });

  it('gives probes and scrapes no request context (its AsyncLocalStorage would turn on promise hooks for good)', async () => {
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
    expect(run).not.toHaveBeenCalled();
    // Any other route is logged with its request context.
    expect((await fetch(`${base}/work`)).status).toBe(200);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('provides the whole config and each of its sections under its own token, to any module', () => {
    expect(app.get(VIGIL_CONFIG)).toBe(ctx.config);
    const sections = sectionsOf(ctx.config);
    for (const name of Object.keys(SECTION_TOKENS) as SectionName[]) {
      expect(app.get(SECTION_TOKENS[name])).toBe(sections[name]);
    }
    expect(app.get(SECTION_TOKENS.clocks)).not.toHaveProperty('apiKeys');
  });
});
