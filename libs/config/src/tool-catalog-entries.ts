import {
  HTTP_TOOL_METHODS,
  HttpToolEntry,
  HttpToolMethod,
  McpServerEntry,
  McpWriteEntry,
} from './tool-catalog';
import type { CatalogReader } from './tool-catalog-reader';

type Json = Record<string, unknown>;

/** Model-facing names allow only these (docs/missions.md, "Tools from outside"). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

const STDIO_FIELDS = ['command', 'args', 'env', 'cwd', 'writes', 'timeoutMs', 'stateful', 'reads'] as const;
const HTTP_SERVER_FIELDS = ['url', 'headers', 'writes', 'timeoutMs', 'stateful', 'reads'] as const;

export function readMcpServer(reader: CatalogReader, name: string, value: unknown): McpServerEntry {
  const entry = `mcpServers.${name}`;
  if (!TOOL_NAME.test(name) || name.includes('__'))
    reader.fail(entry, 'a server name may use only A-Z a-z 0-9 _ - (1 to 64, no "__", no ".")');
  const raw = reader.map(value, entry);
  if (raw.url !== undefined && raw.command !== undefined)
    reader.fail(entry, 'give either "command" (stdio) or "url" (streamable HTTP), not both');
  const writes = readWrites(reader, entry, raw.writes);
  if (raw.url !== undefined) {
    const json = reader.object(raw, entry, HTTP_SERVER_FIELDS);
    const headers = reader.stringRecord(json, 'headers', entry);
    for (const [header, text] of Object.entries(headers))
      reader.variablesIn(text, `${entry}.headers.${header}`);
    return {
      transport: 'http',
      url: reader.url(json, 'url', entry),
      headers,
      writes,
      ...timeout(reader, json, entry),
      ...sessionFields(reader, json, entry, writes),
    };
  }
  const json = reader.object(raw, entry, STDIO_FIELDS);
  const command = reader.string(json, 'command', entry);
  reader.variablesIn(command, `${entry}.command`);
  const args = reader.strings(json, 'args', entry) ?? [];
  args.forEach((arg, i) => reader.variablesIn(arg, `${entry}.args[${i}]`));
  const env = reader.stringRecord(json, 'env', entry);
  for (const [variable, text] of Object.entries(env)) reader.variablesIn(text, `${entry}.env.${variable}`);
  const cwd = reader.optionalString(json, 'cwd', entry);
  if (cwd !== undefined) reader.variablesIn(cwd, `${entry}.cwd`);
  return {
    transport: 'stdio',
    command,
    args,
    env,
    ...(cwd !== undefined ? { cwd } : {}),
    writes,
    ...timeout(reader, json, entry),
    ...sessionFields(reader, json, entry, writes),
  };
}

/** `stateful` and `reads` (docs/missions.md, "Stateful tool servers"), present only when given. */
function sessionFields(
  reader: CatalogReader,
  json: Json,
  entry: string,
  writes: Record<string, McpWriteEntry>,
): { stateful?: true; reads?: string[] } {
  if (json.stateful !== undefined && typeof json.stateful !== 'boolean')
    reader.fail(entry, '"stateful" must be true or false');
  const reads = reader.strings(json, 'reads', entry);
  const written = reads?.find((tool) => writes[tool] !== undefined);
  if (written !== undefined)
    reader.fail(entry, `"${written}" is among both "reads" and "writes": a tool is one or the other`);
  return {
    ...(json.stateful === true ? { stateful: true as const } : {}),
    ...(reads?.length ? { reads } : {}),
  };
}

function readWrites(reader: CatalogReader, server: string, value: unknown): Record<string, McpWriteEntry> {
  const writes: Record<string, McpWriteEntry> = {};
  for (const [tool, raw] of Object.entries(reader.map(value, `${server}.writes`))) {
    const entry = `${server}.writes.${tool}`;
    const json = reader.object(raw, entry, ['lookup', 'keyArguments', 'idempotencyArgument']);
    const write: McpWriteEntry = {};
    if (json.lookup !== undefined) {
      const lookup = reader.object(json.lookup, `${entry}.lookup`, ['tool', 'arguments', 'found']);
      write.lookup = {
        tool: reader.string(lookup, 'tool', `${entry}.lookup`),
        arguments: reader.map(lookup.arguments, `${entry}.lookup.arguments`),
        found: reader.pointer(lookup, 'found', `${entry}.lookup`),
      };
    }
    const keyArguments = reader.strings(json, 'keyArguments', entry, { nonEmpty: true });
    if (keyArguments) write.keyArguments = keyArguments;
    const idempotencyArgument = reader.optionalString(json, 'idempotencyArgument', entry);
    if (idempotencyArgument) write.idempotencyArgument = idempotencyArgument;
    writes[tool] = write;
  }
  return writes;
}

const HTTP_TOOL_FIELDS = [
  'description',
  'method',
  'url',
  'input',
  'headers',
  'write',
  'idempotencyHeader',
  'lookup',
  'keyArguments',
  'timeoutMs',
] as const;

export function readHttpTool(reader: CatalogReader, name: string, value: unknown): HttpToolEntry {
  const entry = `httpTools.${name}`;
  if (!TOOL_NAME.test(name)) reader.fail(entry, 'an HTTP tool name may use only A-Z a-z 0-9 _ - (1 to 64)');
  const json = reader.object(value, entry, HTTP_TOOL_FIELDS);
  if (json.input === undefined)
    reader.fail(entry, '"input" must be a JSON Schema of the arguments (type object)');
  const input = reader.map(json.input, `${entry}.input`);
  if (input.type !== 'object')
    reader.fail(`${entry}.input`, '"type" must be "object" (a JSON Schema of the arguments)');
  const properties = Object.keys(reader.map(input.properties, `${entry}.input.properties`));
  if (json.write !== undefined && typeof json.write !== 'boolean')
    reader.fail(entry, '"write" must be true or false');
  const write = json.write === true;
  const url = reader.url(json, 'url', entry);
  placeholdersAmong(reader, url, properties, `${entry}.url`);
  const headers = reader.stringRecord(json, 'headers', entry);
  for (const [header, text] of Object.entries(headers))
    reader.variablesIn(text, `${entry}.headers.${header}`);
  const tool: HttpToolEntry = {
    description: reader.string(json, 'description', entry),
    method: method(reader, json.method, entry),
    url,
    input,
    headers,
    write,
    ...timeout(reader, json, entry),
  };
  const idempotencyHeader = reader.optionalString(json, 'idempotencyHeader', entry);
  if (idempotencyHeader !== undefined) {
    if (!write) reader.fail(entry, '"idempotencyHeader" is only for a tool with "write": true');
    if (!HEADER_NAME.test(idempotencyHeader))
      reader.fail(entry, '"idempotencyHeader" must be an HTTP header name');
    tool.idempotencyHeader = idempotencyHeader;
  }
  if (json.lookup !== undefined) {
    if (!write) reader.fail(entry, '"lookup" is only for a tool with "write": true');
    const lookup = reader.object(json.lookup, `${entry}.lookup`, ['method', 'url', 'found']);
    const lookupUrl = reader.url(lookup, 'url', `${entry}.lookup`);
    placeholdersAmong(reader, lookupUrl, [...properties, 'idempotencyKey'], `${entry}.lookup.url`);
    tool.lookup = {
      method: method(reader, lookup.method ?? 'GET', `${entry}.lookup`),
      url: lookupUrl,
      found: reader.pointer(lookup, 'found', `${entry}.lookup`),
    };
  }
  const keyArguments = reader.strings(json, 'keyArguments', entry, { nonEmpty: true });
  if (keyArguments) {
    const unknown = keyArguments.find((argument) => !properties.includes(argument));
    if (unknown !== undefined)
      reader.fail(entry, `"keyArguments" names "${unknown}", which "input" does not define`);
    tool.keyArguments = keyArguments;
  }
  return tool;
}

function method(reader: CatalogReader, value: unknown, entry: string): HttpToolMethod {
  const upper = typeof value === 'string' ? value.toUpperCase() : value;
  if (!(HTTP_TOOL_METHODS as readonly unknown[]).includes(upper))
    reader.fail(entry, `"method" must be one of ${HTTP_TOOL_METHODS.join(', ')}`);
  return upper as HttpToolMethod;
}

function placeholdersAmong(reader: CatalogReader, url: string, names: string[], entry: string): void {
  for (const [, name] of url.matchAll(PLACEHOLDER)) {
    if (!names.includes(name))
      reader.fail(entry, `{{${name}}} is not an argument of the tool ("input" has no such property)`);
  }
}

function timeout(reader: CatalogReader, json: Json, entry: string): { timeoutMs?: number } {
  const timeoutMs = reader.timeoutMs(json, entry);
  return timeoutMs === undefined ? {} : { timeoutMs };
}
