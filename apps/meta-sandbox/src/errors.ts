import { randomBytes } from 'node:crypto';
import type { GraphErrorBody } from '@vigil/meta-graph';

export function newFbtraceId(): string {
  return randomBytes(8).toString('base64url').slice(0, 11);
}

/** A Graph API failure the router turns into an HTTP error response. */
export class GraphError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    message: string,
    readonly type = 'OAuthException',
    readonly subcode?: number,
    readonly isTransient?: boolean,
  ) {
    super(message);
    this.name = 'GraphError';
  }

  toBody(fbtraceId = newFbtraceId()): { error: GraphErrorBody } {
    const error: GraphErrorBody = {
      message: this.message,
      type: this.type,
      code: this.code,
      fbtrace_id: fbtraceId,
    };
    if (this.subcode !== undefined) error.error_subcode = this.subcode;
    if (this.isTransient !== undefined) error.is_transient = this.isTransient;
    return { error };
  }
}

export const paramRequired = (name: string): GraphError =>
  new GraphError(400, 100, `(#100) The parameter ${name} is required`);

export const invalidParam = (name: string, detail: string): GraphError =>
  new GraphError(400, 100, `(#100) Invalid parameter ${name}: ${detail}`);

export const invalidToken = (): GraphError =>
  new GraphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');

export const missingToken = (): GraphError =>
  new GraphError(400, 190, 'An access token is required to request this resource.');

export const unsupportedRequest = (method: string, id: string): GraphError =>
  new GraphError(
    400,
    100,
    `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    'GraphMethodException',
    33,
  );

export const nonexistingField = (field: string, nodeType: string): GraphError =>
  new GraphError(400, 100, `(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`);

export const unknownPath = (rest: string): GraphError =>
  new GraphError(400, 2500, `Unknown path components: ${rest}`);

export const transientError = (): GraphError =>
  new GraphError(
    500,
    2,
    'An unexpected error has occurred. Please retry your request later.',
    'OAuthException',
    undefined,
    true,
  );

const RATE_LIMIT_MESSAGES: Record<number, string> = {
  4: 'Application request limit reached',
  17: 'User request limit reached',
  32: 'Page request limit reached',
  613: 'Calls to this api have exceeded the rate limit.',
  80004:
    'There have been too many calls to this ad-account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting#ads-management.',
};

export const rateLimited = (code: number): GraphError =>
  new GraphError(
    400,
    code,
    RATE_LIMIT_MESSAGES[code] ?? `(#${code}) Calls to this api have exceeded the rate limit.`,
    'OAuthException',
    code === 80004 || code === 17 ? 2446079 : undefined,
    true,
  );
