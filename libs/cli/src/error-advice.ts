import { EventStreamProtocolError, VigilApiError, VigilConnectionError } from '@vigil/client';
import { CliUsageError } from './cli-env';

export interface AdviceContext {
  /** The task the command was about, to name it in a 404. */
  taskId?: string;
  /** Whether the key was chosen by the user (VIGIL_API_KEY) or is the development default. */
  keyFromEnv: boolean;
}

/** An error as one sentence that says what happened and what to do about it (docs/cli.md, "Errors"). */
export function adviceFor(error: unknown, context: AdviceContext): string {
  if (error instanceof VigilConnectionError)
    return `cannot reach the Vigil API at ${error.baseUrl}${error.code ? ` (${error.code})` : ''}: is the API running there? Start it with npm run start:all, or set VIGIL_URL to where it runs`;
  if (error instanceof VigilApiError) {
    switch (error.status) {
      case 401:
        return context.keyFromEnv
          ? `the API refused the key in VIGIL_API_KEY (401): set VIGIL_API_KEY to a key of the API's API_KEYS`
          : `the API refused the development key (401): set VIGIL_API_KEY to a key of the API's API_KEYS`;
      case 404:
        return context.taskId
          ? `no task ${context.taskId} for this API key's tenant (404): check the id with vigil tasks ls`
          : `not found (404): ${error.message}`;
      case 409:
        return `${error.message} (409${error.currentStatus ? `, the task is ${error.currentStatus}` : ''})`;
      case 429:
        return `${error.message} (429)${error.retryAfterS ? `: try again in ${error.retryAfterS} s` : ''}`;
      default:
        if (error.status < 500)
          return `the API refused the request (${error.status} ${error.error}): ${error.message}`;
        return `the API failed (${error.status} ${error.error}): ${error.message}; its log says more`;
    }
  }
  if (error instanceof CliUsageError || error instanceof EventStreamProtocolError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
