import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { BoundedValidationPipe } from './http/bounded-validation.pipe';
import { ErrorFilter } from './http/error.filter';
import { bodyParserErrors, requireJsonBody } from './http/json-body.middleware';
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
  express.use(bodyParserErrors);
  app.useGlobalPipes(new BoundedValidationPipe());
  app.useGlobalFilters(new ErrorFilter());
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Vigil')
      .setDescription('Long AI-agent jobs that neither die silently nor claim success they did not earn.')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('docs', app, document);
}
