/** Base class for every error the Graph client throws. */
export class MetaGraphError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface MetaApiErrorFields {
  code: number;
  subcode?: number;
  type: string;
  message: string;
  fbtraceId?: string;
  httpStatus: number;
  retryable: boolean;
  isTransient?: boolean;
  userTitle?: string;
  userMessage?: string;
}

/** An error envelope returned by the API (`{error: {message, type, code, error_subcode, fbtrace_id}}`). */
export class MetaApiError extends MetaGraphError implements MetaApiErrorFields {
  readonly code: number;
  readonly subcode?: number;
  readonly type: string;
  readonly fbtraceId?: string;
  readonly httpStatus: number;
  readonly retryable: boolean;
  readonly isTransient?: boolean;
  readonly userTitle?: string;
  readonly userMessage?: string;

  /** Meta's "object does not exist" (GraphMethodException, code 100, subcode 33). */
  get isNotFound(): boolean {
    return this.code === 100 && this.subcode === 33;
  }

  constructor(fields: MetaApiErrorFields) {
    super(fields.message);
    this.code = fields.code;
    this.subcode = fields.subcode;
    this.type = fields.type;
    this.fbtraceId = fields.fbtraceId;
    this.httpStatus = fields.httpStatus;
    this.retryable = fields.retryable;
    this.isTransient = fields.isTransient;
    this.userTitle = fields.userTitle;
    this.userMessage = fields.userMessage;
  }
}

export type TransportFailure = 'timeout' | 'connection' | 'bad_response';

/** No usable answer: the request timed out, the connection failed or dropped, or the body was unreadable. */
export class MetaTransportError extends MetaGraphError {
  constructor(
    readonly kind: TransportFailure,
    message: string,
    /** False when the request certainly never reached the server (e.g. connection refused). */
    readonly maybeDelivered: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type WriteOutcomeReason =
  'timeout' | 'connection_dropped' | 'bad_response' | 'server_error' | 'aborted';

/**
 * A create was sent but its result never arrived, so the object may or may not exist. Never retried
 * blindly: reconcile with `findByName` (or an image hash lookup) before writing again.
 */
export class MetaWriteOutcomeUnknownError extends MetaGraphError {
  constructor(
    readonly operation: string,
    readonly parentId: string,
    readonly objectName: string,
    readonly reason: WriteOutcomeReason,
    options?: { cause?: unknown },
  ) {
    super(
      `${operation} "${objectName}" under ${parentId}: outcome unknown (${reason}); reconcile before retrying`,
      options,
    );
  }
}

/** The caller's AbortSignal fired before any request that might have written was in flight. */
export class MetaRequestAbortedError extends MetaGraphError {
  constructor(options?: { cause?: unknown }) {
    super('Graph request aborted', options);
    this.name = 'AbortError';
  }
}

/** Listing an edge exceeded the page bound or the cursor stopped advancing. */
export class MetaPagingError extends MetaGraphError {}
