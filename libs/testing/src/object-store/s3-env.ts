import type { S3TestServer } from './s3-server';

const NAMES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
];

/**
 * Puts the test server's key pair where the S3 driver finds credentials (the standard AWS
 * environment variables), with no region set, so the driver's default region is used; `overrides`
 * replace any of them. Returns what puts the environment back.
 */
export function useAwsEnvironment(
  server: Pick<S3TestServer, 'accessKeyId' | 'secretAccessKey'>,
  overrides: Record<string, string> = {},
): () => void {
  const saved = NAMES.map((name) => [name, process.env[name]] as const);
  for (const name of NAMES) delete process.env[name];
  process.env.AWS_ACCESS_KEY_ID = server.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = server.secretAccessKey;
  Object.assign(process.env, overrides);
  return () => {
    for (const [name, value] of saved)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  };
}
