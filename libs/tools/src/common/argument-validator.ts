import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { ToolCallError } from '../tool-gateway';

/** The MCP SDK's own Ajv setup (draft-07, formats): the validator it uses for output schemas. */
const ajv = new AjvJsonSchemaValidator();

export type ArgumentCheck = (args: Record<string, unknown>) => void;

/**
 * Compiles a tool's input schema once. Arguments that break it are a ToolCallError naming the
 * problem, so the model can correct its call. A schema this validator cannot compile (a dialect
 * it does not know) is left to the server to enforce: `compiled: false` says so.
 */
export function argumentCheck(
  catalogName: string,
  schema: Record<string, unknown>,
): {
  check: ArgumentCheck;
  compiled: boolean;
} {
  let validate: ReturnType<typeof ajv.getValidator>;
  try {
    validate = ajv.getValidator(schema as JsonSchemaType);
  } catch {
    return { check: () => undefined, compiled: false };
  }
  return {
    compiled: true,
    check: (args) => {
      const result = validate(args);
      if (!result.valid) {
        throw new ToolCallError(
          `${catalogName}: the arguments do not match the tool's input schema: ${result.errorMessage}`,
        );
      }
    },
  };
}
