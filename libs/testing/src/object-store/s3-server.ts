import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface S3TestServer {
  /** http://127.0.0.1:<port>, for S3_ENDPOINT (path-style addressing). */
  endpoint: string;
  /** A bucket that exists, empty at the start. */
  bucket: string;
  /** The one key pair the server accepts (its requests are signed and checked). */
  accessKeyId: string;
  secretAccessKey: string;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

const SCRIPT = join(__dirname, 's3rver-process.cjs');

/**
 * An S3-compatible server (the npm `s3rver`, signatures checked) in a child process on a port the
 * OS picks, keeping its objects in a temporary directory: for tests that drive the real AWS SDK
 * against something that answers as S3 does. Why a child process: s3rver-process.cjs.
 */
export async function startS3Server(bucket = 'vigil-test'): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'vigil-s3-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', SCRIPT, directory, bucket], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening: ${stderr}`)));
  }).catch(async (error: unknown) => {
    await rm(directory, { recursive: true, force: true });
    throw error;
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
