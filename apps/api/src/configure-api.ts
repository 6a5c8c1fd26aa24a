import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { BoundedValidationPipe } from './http/bounded-validation.pipe';
import { ErrorFilter } from './http/error.filter';
import { bodyParserErrors, requireJsonBody } from './http/json-body.middleware';
import { createOpenApiDocument } from './http/openapi';
import { noStore, securityHeaders } from './http/security-headers';

export const MAX_BODY_BYTES = 1024 * 1024;

/** HTTP settings shared by main.ts and the end-to-end tests. */
export function configureApi(app: INestApplication): void {
  const express = app as NestExpressApplication;
  express.disable('x-powered-by');
  for (const handler of securityHeaders()) express.use(handler);
  express.use('/v1', noStore);
  express.use('/v1', requireJsonBody);
  express.useBodyParser('json', { limit: MAX_BODY_BYTES });
  // The answer pages' plain HTML forms (no script).
  express.useBodyParser('urlencoded', { limit: 64 * 1024, extended: false });
  express.use(bodyParserErrors);
  app.useGlobalPipes(new BoundedValidationPipe());
  app.useGlobalFilters(new ErrorFilter());
  // Idle keep-alive sockets outlive the clients' own idle timeouts (fetch's 4 s, a load balancer's
  // 60 s): when the server closes first, a request sent on the closing socket fails ECONNRESET.
  const server = express.getHttpServer() as Server;
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const document = createOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document);
}
