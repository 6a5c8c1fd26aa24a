import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { VigilConfig } from '@vigil/config';
import { HttpClient, type RedisTestContext } from '@vigil/testing';
import { ApiModule } from '../../apps/api/src/api.module';
import { configureApi } from '../../apps/api/src/configure-api';

/**
 * The API app in the test's own process, configured as main.ts configures it, on a free loopback
 * port: for integration tests that speak real HTTP to it without a build (test/ may import apps;
 * libs/testing may not). It runs on `ctx`'s Redis and prefix (with `config` when a test changes
 * a setting), and `ctx.close()` closes it.
 */
export class InProcessApi {
  private closing?: Promise<void>;

  private constructor(
    readonly app: INestApplication,
    readonly baseUrl: string,
  ) {}

  static async start(ctx: RedisTestContext, config: VigilConfig = ctx.config): Promise<InProcessApi> {
    // A response a test never read to its end holds its socket past the server's long keep-alive:
    // Nest cuts every connection when the app closes, rather than waiting for them.
    const app = await NestFactory.create(ApiModule.forRoot(config), {
      logger: false,
      forceCloseConnections: true,
    });
    configureApi(app);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const api = new InProcessApi(app, `http://127.0.0.1:${port}`);
    ctx.onClose(() => api.close());
    return api;
  }

  client(apiKey: string): HttpClient {
    return new HttpClient(this.baseUrl, apiKey);
  }

  /** Closes the app once, however often it is called (a test may close it before `ctx` does). */
  close(): Promise<void> {
    this.closing ??= this.app.close();
    return this.closing;
  }
}
