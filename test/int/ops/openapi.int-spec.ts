import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage } from 'class-validator';
import { CREATE_TASK_EXAMPLES } from '@vigil/control';
import { HttpClient, RedisTestContext } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { version } = require('../../../package.json') as { version: string };
// class-transformer's @Type registry: not part of its typed public API, so required by path.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: MetadataStorage;
};

type Schema = { properties?: Record<string, unknown>; $ref?: string; items?: Schema; allOf?: Schema[] };
interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: {
    content: Record<string, { schema: Schema; examples?: Record<string, { value: unknown }> }>;
  };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Record<string, string[]>[];
}
interface Document {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Record<string, string>> };
}

type Class = abstract new (...args: never[]) => unknown;

/** Properties class-validator checks on a class (its own and inherited). */
function validatedProperties(target: Class): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(target as never, '', true, false);
  return [...new Set(metadata.map((entry) => entry.propertyName))];
}

/** Nested DTO classes of a DTO, through class-transformer's @Type. */
function nestedClasses(target: Class): Class[] {
  return validatedProperties(target)
    .map((property) => defaultMetadataStorage.findTypeMetadata(target as never, property)?.typeFunction())
    .filter(
      (type): type is Class => typeof type === 'function' && validatedProperties(type as Class).length > 0,
    );
}

/**
 * The OpenAPI document against what the app really does (docs/api.md, "OpenAPI"): every
 * route Nest registers under /v1, /health, /version and /metrics is documented, every property a
 * DTO validates is in its schema, bodies and responses are described, errors share one shape.
 */
describe('the OpenAPI document', () => {
  const ctx = new RedisTestContext('openapi', {
    API_KEYS: 'docs:docs-key-00001',
    ADMIN_PASSWORD: 'docs-admin-pw1',
  });
  let app: InProcessApi['app'];
  let document: Document;
  let api: HttpClient;

  beforeAll(async () => {
    const started = await InProcessApi.start(ctx);
    app = started.app;
    document = (await (await fetch(`${started.baseUrl}/docs-json`)).json()) as Document;
    api = started.client('docs-key-00001');
  });

  afterAll(() => ctx.close());

  /** Every route handler Nest registered: its method, its path and its DTO parameters. */
  function registeredRoutes() {
    const discovery = app.get(DiscoveryService);
    const scanner = app.get(MetadataScanner);
    const routes: {
      method: string;
      path: string;
      controller: string;
      dtos: { kind: string; type: Class }[];
    }[] = [];
    for (const wrapper of discovery.getControllers()) {
      const controller = wrapper.metatype as Class | undefined;
      if (!controller || !wrapper.instance) continue;
      const prefix = (Reflect.getMetadata('path', controller) as string | undefined) ?? '';
      for (const name of scanner.getAllMethodNames(Object.getPrototypeOf(wrapper.instance))) {
        const handler = (controller.prototype as Record<string, unknown>)[name] as object;
        const path = Reflect.getMetadata('path', handler) as string | undefined;
        const method = Reflect.getMetadata('method', handler) as number | undefined;
        if (path === undefined || method === undefined) continue;
        const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, name) ?? []) as Class[];
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
          string,
          { index: number; data?: string }
        >;
        const dtos = Object.entries(args)
          .map(([key, arg]) => ({ kind: Number(key.split(':')[0]), arg }))
          .filter(
            ({ kind, arg }) => (kind === RouteParamtypes.BODY || kind === RouteParamtypes.QUERY) && !arg.data,
          )
          .map(({ kind, arg }) => ({
            kind: kind === RouteParamtypes.BODY ? 'body' : 'query',
            type: types[arg.index],
          }))
          .filter(({ type }) => typeof type === 'function' && validatedProperties(type).length > 0);
        const full = `/${[prefix, path]
          .map((part) => part.replace(/^\/|\/$/g, ''))
          .filter(Boolean)
          .join('/')}`;
        routes.push({
          method: ['get', 'post', 'put', 'delete', 'patch'][method] ?? String(method),
          path: full,
          controller: controller.name,
          dtos,
        });
      }
    }
    return routes;
  }

  const toOpenApi = (path: string) => path.replace(/:(\w+)/g, '{$1}');
  const documented = (path: string) => /^\/(v1\/|health$|version$|metrics$)/.test(path);

  /** A `$ref` (possibly wrapped in allOf) resolved to its component. */
  function resolve(schema: Schema | undefined): Schema | undefined {
    const ref = schema?.$ref ?? schema?.allOf?.[0]?.$ref;
    return ref ? document.components.schemas[ref.split('/').pop()!] : schema;
  }

  it('carries the package version and the bearer scheme as a static API key', () => {
    expect(document.info.version).toBe(version);
    const bearer = document.components.securitySchemes.bearer;
    expect(bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect([undefined, 'API key']).toContain(bearer.bearerFormat);
    expect(JSON.stringify(document.components.securitySchemes)).not.toContain('"bearerFormat":"JWT"');
  });

  it('documents every route Nest registers under /v1, /health, /version and /metrics, and no other', () => {
    const routes = registeredRoutes();
    const expected = routes
      .filter((route) => documented(route.path))
      .map((r) => `${r.method} ${toOpenApi(r.path)}`);
    const inDocument = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(expected.length).toBeGreaterThanOrEqual(16);
    expect(expected.filter((route) => !inDocument.includes(route))).toEqual([]);
    expect(inDocument.filter((route) => !expected.includes(route))).toEqual([]);
    // The admin pages are not part of the API.
    expect(routes.some((route) => route.path.startsWith('/admin/tasks'))).toBe(true);
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/admin'))).toEqual([]);
  });

  it('describes a success response and the one error shape on every operation, and the key on /v1', () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        const success = Object.entries(operation.responses).filter(([status]) => /^2/.test(status));
        if (success.length === 0) problems.push(`${name}: no 2xx response`);
        for (const [status, response] of success) {
          const schema = Object.values(response.content ?? {})[0]?.schema;
          // 204 No Content has no body to describe (DELETE /v1/schedules/:id).
          if (!schema && status !== '204') problems.push(`${name}: ${status} has no schema`);
        }
        const errors = Object.entries(operation.responses).filter(([status]) => /^[45]/.test(status));
        if (!operation.responses['500']) problems.push(`${name}: no 500`);
        for (const [status, response] of path === '/health' ? [] : errors) {
          const schema = response.content?.['application/json']?.schema;
          if (schema?.$ref !== '#/components/schemas/Error')
            problems.push(`${name}: ${status} is not the Error shape`);
        }
        if (path.startsWith('/v1/')) {
          if (!operation.responses['401']) problems.push(`${name}: no 401`);
          if (!operation.security?.some((entry) => 'bearer' in entry))
            problems.push(`${name}: no bearer security`);
        }
      }
    expect(problems).toEqual([]);
    expect(document.components.schemas.Error).toMatchObject({ required: ['statusCode', 'error', 'message'] });
  });

  it('has every property each DTO validates in its schema, with a type', () => {
    const gaps: string[] = [];
    const seen = new Set<Class>();
    const checkBody = (type: Class, schema: Schema | undefined, where: string) => {
      if (seen.has(type)) return;
      seen.add(type);
      const properties = resolve(schema)?.properties ?? {};
      for (const property of validatedProperties(type)) {
        const described = properties[property] as (Schema & Record<string, unknown>) | undefined;
        if (!described) gaps.push(`${type.name}.${property} (${where}) is not in the schema`);
        else if (!['type', '$ref', 'enum', 'allOf', 'oneOf', 'description'].some((key) => key in described))
          gaps.push(`${type.name}.${property} (${where}) has neither a type nor a description`);
      }
      for (const nested of nestedClasses(type)) {
        const property = validatedProperties(type).find(
          (name) => defaultMetadataStorage.findTypeMetadata(type as never, name)?.typeFunction() === nested,
        )!;
        const described = properties[property] as Schema | undefined;
        checkBody(nested, described?.items ?? described, `${type.name}.${property}`);
      }
    };
    for (const route of registeredRoutes().filter((r) => documented(r.path)))
      for (const dto of route.dtos) {
        const operation = document.paths[toOpenApi(route.path)]?.[route.method];
        const where = `${route.method.toUpperCase()} ${route.path}`;
        if (dto.kind === 'body')
          checkBody(dto.type, operation?.requestBody?.content['application/json']?.schema, where);
        else
          for (const property of validatedProperties(dto.type))
            if (
              !operation?.parameters?.some(
                (parameter) => parameter.in === 'query' && parameter.name === property,
              )
            )
              gaps.push(`${dto.type.name}.${property} (${where}) is not a documented query parameter`);
      }
    expect(seen.size).toBeGreaterThanOrEqual(5);
    expect(gaps).toEqual([]);
  });

  it('shows a complete body for each kind, and the noop and campaign_build ones are accepted as they are', async () => {
    const examples = document.paths['/v1/tasks'].post.requestBody?.content['application/json'].examples ?? {};
    expect(Object.keys(examples).sort()).toEqual(['campaign_build', 'mission', 'noop']);
    for (const [kind, example] of Object.entries(CREATE_TASK_EXAMPLES))
      expect(examples[kind].value).toEqual(example.value);
    for (const kind of ['noop', 'campaign_build'] as const) {
      const created = await api.post('/v1/tasks', CREATE_TASK_EXAMPLES[kind].value);
      expect({ kind, status: created.status, body: created.status === 201 ? 'ok' : created.body }).toEqual({
        kind,
        status: 201,
        body: 'ok',
      });
      expect(created.body.kind).toBe(kind);
    }
    // The README shows the same bodies.
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    for (const example of Object.values(CREATE_TASK_EXAMPLES))
      expect(readme).toContain(JSON.stringify(example.value, null, 2));
    // And the quick start's file (`npx vigil tasks create -f examples/noop.json --watch`) is the noop one.
    const noopFile = readFileSync(join(__dirname, '../../../examples/noop.json'), 'utf8');
    expect(JSON.parse(noopFile)).toEqual(CREATE_TASK_EXAMPLES.noop.value);
  });
});
