import { Controller, Get, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { storage } from 'nestjs-pino/storage';
import { RedisTestContext } from '@vigil/testing';
import { PlatformModule } from '@vigil/platform';

@Controller('work')
class WorkController {
  @Get()
  work(): { ok: true } {
    return { ok: true };
  }
}

describe('PlatformModule request logging', () => {
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
});
