import type * as S3 from '@aws-sdk/client-s3';
import { checkedLimit, checkedListPrefix, checkedObjectKey } from './object-key-guard';
import { ObjectStoreError, type ObjectStore } from './object-store';

/** Where the driver writes: a bucket and the key prefix every object goes under ('' or ending in '/'). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

export interface S3ObjectStoreOptions {
  /** `s3://<bucket>/<prefix>` (OBJECT_STORE_URL). */
  url: string;
  /** An S3-compatible service (S3_ENDPOINT); unset: AWS itself. */
  endpoint?: string;
  /** Path-style addressing (S3_FORCE_PATH_STYLE). */
  forcePathStyle?: boolean;
}

/** When no region is configured anywhere in the AWS chain (an S3-compatible service rarely needs one). */
const DEFAULT_REGION = 'us-east-1';

/** `s3://bucket/some/prefix` → {bucket, prefix: 'some/prefix/'}; the prefix is optional. */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/([^?#]*))?$/.exec(url);
  if (!match) throw new ObjectStoreError(`not an s3://<bucket>/<prefix> URL: ${JSON.stringify(url)}`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix !== '') checkedObjectKey(prefix);
  return { bucket: match[1], prefix: prefix === '' ? '' : `${prefix}/` };
}

/**
 * The `s3://` driver (docs/operations.md, "The object store") on any S3-compatible service through
 * the AWS SDK. Credentials and region come only from the standard AWS chain (environment, shared
 * files, instance or container roles), never from Vigil's configuration, and no error this driver
 * raises carries them: its messages are built from the operation, the key and the service's error
 * code and text, and the SDK's error (which holds the signed request) is not kept as the cause.
 */
export class S3ObjectStore implements ObjectStore {
  readonly location: string;
  private readonly clientOptions: { endpoint?: string; forcePathStyle: boolean };
  /** The SDK and its client, loaded on first use: a process on the file driver never pays for them. */
  private connection?: Promise<{ sdk: typeof S3; client: S3.S3Client }>;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3ObjectStoreOptions) {
    const { bucket, prefix } = parseS3Url(options.url);
    this.bucket = bucket;
    this.prefix = prefix;
    const endpoint = options.endpoint ? withoutUserInfo(options.endpoint) : undefined;
    this.location = `s3://${bucket}/${prefix}${endpoint ? ` at ${endpoint}` : ''}`;
    this.clientOptions = { endpoint: options.endpoint, forcePathStyle: options.forcePathStyle ?? false };
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const Key = this.keyOf(key);
    await this.call('write', key, ({ sdk, client }) =>
      client.send(
        new sdk.PutObjectCommand({
          Bucket: this.bucket,
          Key,
          Body: body,
          ContentType: contentType,
          ContentLength: body.length,
        }),
      ),
    );
  }

  /** S3 answers a PUT before anything can be read of it: the read-back is a GET. */
  async putAndReadBack(key: string, body: Buffer, contentType: string): Promise<Buffer | null> {
    await this.put(key, body, contentType);
    return this.get(key);
  }

  async get(key: string): Promise<Buffer | null> {
    const Key = this.keyOf(key);
    return this.call('read', key, async ({ sdk, client }) => {
      const answer = await missingAsNull(() =>
        client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key })),
      );
      if (!answer) return null;
      if (!answer.Body) return Buffer.alloc(0);
      const bytes = await answer.Body.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    });
  }

  async head(key: string): Promise<{ bytes: number } | null> {
    const Key = this.keyOf(key);
    return this.call('stat', key, async ({ sdk, client }) => {
      const answer = await missingAsNull(() =>
        client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key })),
      );
      return answer ? { bytes: answer.ContentLength ?? 0 } : null;
    });
  }

  async delete(key: string): Promise<void> {
    const Key = this.keyOf(key);
    // S3 answers a delete of a missing key with success: idempotent as it is.
    await this.call('delete', key, ({ sdk, client }) =>
      client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key })),
    );
  }

  async list(
    prefix: string,
    options: { after?: string; limit: number },
  ): Promise<{ keys: string[]; next?: string }> {
    checkedListPrefix(prefix);
    const limit = checkedLimit(options.limit);
    const answer = await this.call('list', prefix, ({ sdk, client }) =>
      client.send(
        new sdk.ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix + prefix,
          StartAfter: options.after ? this.prefix + options.after : undefined,
          MaxKeys: limit,
        }),
      ),
    );
    const keys = (answer.Contents ?? [])
      .map((object) => object.Key)
      .filter((key): key is string => typeof key === 'string')
      .map((key) => key.slice(this.prefix.length));
    return answer.IsTruncated && keys.length > 0 ? { keys, next: keys[keys.length - 1] } : { keys };
  }

  /** Closes the client's connections (at shutdown). */
  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    if (connection) (await connection).client.destroy();
  }

  private keyOf(key: string): string {
    return this.prefix + checkedObjectKey(key);
  }

  private connect(): Promise<{ sdk: typeof S3; client: S3.S3Client }> {
    return (this.connection ??= import('@aws-sdk/client-s3').then((sdk) => {
      // The chain's own region lookup (AWS_REGION, shared config files), borrowed from a client
      // that never sends, so that a missing region falls back instead of failing every call.
      const probe = new sdk.S3Client({});
      const chainRegion = probe.config.region;
      probe.destroy();
      const client = new sdk.S3Client({
        ...this.clientOptions,
        region: () =>
          chainRegion().catch((error: unknown) => {
            if (error instanceof Error && error.message === 'Region is missing') return DEFAULT_REGION;
            throw error;
          }),
        // A bucket in another region than the one configured is followed rather than failed.
        followRegionRedirects: true,
        requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
      });
      return { sdk, client };
    }));
  }

  private async call<T>(
    operation: string,
    key: string,
    send: (connection: { sdk: typeof S3; client: S3.S3Client }) => Promise<T>,
  ): Promise<T> {
    const connection = await this.connect();
    try {
      return await send(connection);
    } catch (error) {
      throw new ObjectStoreError(
        `could not ${operation} ${key} in ${this.location}: ${await this.describe(error, connection.client)}`,
      );
    }
  }

  /** The service's error code, HTTP status and text, with any credential of the chain blanked out. */
  private async describe(error: unknown, client: S3.S3Client): Promise<string> {
    const failure = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    const status = failure?.$metadata?.httpStatusCode;
    const text = `${failure?.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${failure?.message ?? String(error)}`;
    return redact(text, await credentialValues(client));
  }
}

/**
 * The answer, or null when S3 says there is no such object. A missing bucket stays an error, except
 * on HEAD, whose answer has no body to tell the two apart.
 */
async function missingAsNull<T>(send: () => Promise<T>): Promise<T | null> {
  try {
    return await send();
  } catch (error) {
    if (isMissingObject(error)) return null;
    throw error;
  }
}

async function credentialValues(client: S3.S3Client): Promise<string[]> {
  const values = [process.env.AWS_SECRET_ACCESS_KEY, process.env.AWS_SESSION_TOKEN];
  try {
    const identity = await client.config.credentials();
    values.push(identity.secretAccessKey, identity.sessionToken);
  } catch (unresolved) {
    // Nothing more to blank out: the chain has no credentials to leak, and the failure being
    // described (most likely this very one) is what the caller hears.
    void unresolved;
  }
  return values.filter((value): value is string => typeof value === 'string' && value.length >= 4);
}

function isMissingObject(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  if (failure?.name === 'NoSuchKey' || failure?.name === 'NotFound') return true;
  return failure?.$metadata?.httpStatusCode === 404 && failure.name !== 'NoSuchBucket';
}

function redact(text: string, secrets: string[]): string {
  return secrets.reduce((clean, secret) => clean.split(secret).join('[redacted]'), text);
}

function withoutUserInfo(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return endpoint.replace(/\/\/[^@/]*@/, '//');
  }
}
