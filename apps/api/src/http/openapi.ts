import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { CODE_VERSION } from '@vigil/platform';
import { API_SCHEMAS, schemaRef } from './openapi-schemas';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The errors a route can answer, from what it is: one table rather than a decorator per route. */
function errorsOf(path: string, method: string): Record<number, string> {
  const errors: Record<number, string> = {};
  const v1 = path.startsWith('/v1/');
  if (v1) errors[401] = 'no API key, or one API_KEYS does not name';
  if (v1 && path.includes('{id}'))
    errors[404] = "no such task (or conversation, or schedule) for this API key's tenant";
  if (v1)
    errors[400] = 'a parameter, the query or the body failed validation (the message lists the problems)';
  if (v1 && method === 'post') {
    errors[415] = 'the body was not sent as application/json';
    errors[413] = 'the body is larger than 1 MB';
    errors[429] = 'RATE_LIMIT_PER_MINUTE reached for this key and route; `Retry-After` in seconds';
    errors[503] =
      'Redis is full (maxmemory reached) and takes no writes: `code: "store_full"`, `Retry-After` in seconds; reads still answer';
  }
  if (/\/(stop|pause|resume|input)$/.test(path))
    errors[409] = 'the control does not apply in the current state; `currentStatus` says which it is';
  if (path === '/v1/tasks' && method === 'post') {
    errors[409] = 'parentId names a task that cannot take children';
    errors[422] = 'the Idempotency-Key was used before with another body';
    errors[429] =
      'RATE_LIMIT_PER_MINUTE, or MAX_ACTIVE_TASKS_PER_TENANT (the message says how many are active)';
  }
  if (path === '/v1/schedules' && method === 'post')
    errors[429] = 'RATE_LIMIT_PER_MINUTE, or SCHEDULES_PER_TENANT (the message says how many the tenant has)';
  const readsArchives =
    (method === 'get' && path.startsWith('/v1/tasks') && !path.endsWith('/events')) ||
    /^\/v1\/tasks\/\{id\}\/(stop|pause|resume|input)$/.test(path);
  if (readsArchives)
    errors[502] =
      'the archive of a finished task in the object store could not be read (the message names the task)';
  if (path === '/metrics') errors[401] = 'METRICS_TOKEN is set and the bearer token is missing or wrong';
  errors[500] = 'an unexpected error (logged with its cause)';
  return errors;
}

/** What the shared platform controllers (every app serves them) answer. */
const PLATFORM: Record<string, { summary: string; schema: Record<string, unknown>; type?: string }> = {
  '/health': {
    summary:
      'Liveness and readiness: Redis answers (terminus health check); `degraded` (still 200) while Redis is full',
    schema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'], example: 'ok' },
        info: { type: 'object' },
      },
    },
  },
  '/version': {
    summary: 'The code version (package version + commit) and the model providers in use',
    schema: {
      type: 'object',
      additionalProperties: true,
      example: { version: '0.1.0', commit: '84199d609453' },
    },
  },
  '/metrics': {
    summary: 'Prometheus metrics of this process (with METRICS_TOKEN set: Bearer <token>)',
    schema: { type: 'string' },
    type: 'text/plain',
  },
};

function describe(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      for (const [status, description] of Object.entries(errorsOf(path, method)))
        operation.responses[status] ??= { description };
      // Every error body is the one shape, whoever declared the response (/health's 503 is terminus's).
      for (const [status, response] of Object.entries(operation.responses))
        if (/^[45]/.test(status) && path !== '/health' && response && 'description' in response)
          response.content = { 'application/json': { schema: schemaRef('Error') } };
      if (path.startsWith('/v1/')) operation.security ??= [{ bearer: [] }];
      const platform = PLATFORM[path];
      if (platform) {
        operation.summary ??= platform.summary;
        operation.tags = ['operations'];
        operation.responses['200'] = {
          description: 'OK',
          content: { [platform.type ?? 'application/json']: { schema: platform.schema } },
        };
      }
    }
  }
}

/**
 * The OpenAPI document served at /docs (docs/api.md, "OpenAPI"): every route Nest
 * registers, the DTOs' schemas with bounds and examples, the response shapes, the error shape on
 * every route, the bearer scheme as the static API key it is, and the package's version.
 */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Vigil')
      .setDescription(
        'Long AI-agent jobs that neither die silently nor claim success they did not earn. Every /v1 route ' +
          'needs `Authorization: Bearer <api key>` and sees only its own tenant; errors are always ' +
          '`{statusCode, error, message}`.',
      )
      .setVersion(CODE_VERSION.version)
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key',
          description: 'A static API key from API_KEYS (`tenant:key,…`), not a JWT.',
        },
        'bearer',
      )
      .build(),
  );
  document.components = {
    ...document.components,
    schemas: { ...API_SCHEMAS, ...document.components?.schemas },
  };
  describe(document);
  return document;
}
