import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { BoundedValidationPipe } from './http/bounded-validation.pipe';
import { ErrorFilter } from './http/error.filter';
import { requireJsonBody } from './http/json-body.middleware';

export const MAX_BODY_BYTES = 1024 * 1024;

/** HTTP settings shared by main.ts and the end-to-end tests. */
export function configureApi(app: INestApplication): void {
  const express = app as NestExpressApplication;
  express.use('/v1', requireJsonBody);
  express.useBodyParser('json', { limit: MAX_BODY_BYTES });
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
