import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import type { JsonSchema } from '../task-kind';

/** The validator libs/tools checks catalog arguments with (the MCP SDK's Ajv, draft-07, formats). */
const ajv = new AjvJsonSchemaValidator();

/** What is wrong with a value, each problem naming its place under `root` (`input.documents[0].name …`). */
export type SchemaCheck = (value: unknown, root: string) => string[];

/** `/documents/0/name` as `.documents[0].name`. */
const jsPath = (pointer: string): string =>
  pointer.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\/([^/[]+)/g, '.$1');

/**
 * Compiles `schema` once; a schema Ajv cannot compile throws here, when the kind or tool is
 * defined, not at its first call.
 */
export function compileSchema(schema: JsonSchema, label: string): SchemaCheck {
  let validate: ReturnType<typeof ajv.getValidator>;
  try {
    validate = ajv.getValidator(schema as JsonSchemaType);
  } catch (error) {
    throw new Error(`${label}: not a JSON Schema Ajv can compile: ${(error as Error).message}`);
  }
  return (value, root) => {
    const result = validate(value);
    if (result.valid) return [];
    // Ajv's text is "data/a/0 must be …, data must have …": one problem per "data".
    return (result.errorMessage ?? 'does not match its schema')
      .split(/, (?=data\b)/)
      .map((problem) => problem.replace(/^data(\S*)/, (_, pointer: string) => `${root}${jsPath(pointer)}`));
  };
}
