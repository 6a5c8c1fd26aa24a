import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { VigilConfig } from '@vigil/config';
import { HttpClient } from '@vigil/testing';
import { ApiModule } from '../../apps/api/src/api.module';
import { configureApi } from '../../apps/api/src/configure-api';

/**
 * The API app in the test's own process, configured as main.ts configures it, on a free loopback
 * port: for integration tests that speak real HTTP to it without a build (test/ may import apps;
 * libs/testing may not).
 */
export class InProcessApi {
  private constructor(
    readonly app: INestApplication,
    readonly baseUrl: string,
  ) {}

  static async start(config: VigilConfig): Promise<InProcessApi> {
    const app = await NestFactory.create(ApiModule.forRoot(config), { logger: false });
    configureApi(app);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    return new InProcessApi(app, `http://127.0.0.1:${port}`);
  }

  client(apiKey: string): HttpClient {
    return new HttpClient(this.baseUrl, apiKey);
  }

  close(): Promise<void> {
    return this.app.close();
  }
}
