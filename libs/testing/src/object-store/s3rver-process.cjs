// @20minutes/s3rver (a maintained fork of the npm fake S3 server s3rver, which unlike it checks
// SigV4 signatures) as its own process, for startS3Server (s3-server.ts).
// Args: <directory> <bucket>. Prints {"port": n} once listening; stops on SIGTERM.
//
// Three defects of the server are worked around here, none about what the S3 protocol says:
// - its ListObjectsV2 continuation tokens use DES, which OpenSSL 3 (Node >= 17) has only in the
//   legacy provider: this process runs with --openssl-legacy-provider;
// - its listing walks directories in readdir order and cuts the page there, so keys come out of
//   order and a page can skip keys. S3 lists in ascending UTF-8 byte order: the store's listing is
//   wrapped to ask for every key under the prefix, then sort, apply StartAfter and MaxKeys;
// - for a bucket-level request (a listing) it signs the path without the trailing slash the AWS
//   SDK v3 sends and signs ('/bucket/'): the canonical request is given the path as sent.
'use strict';
const FilesystemStore = require('@20minutes/s3rver/lib/stores/filesystem');
const v4 = require('@20minutes/s3rver/lib/signature/v4');
const S3rver = require('@20minutes/s3rver');

const listObjects = FilesystemStore.prototype.listObjects;
FilesystemStore.prototype.listObjects = async function sortedListObjects(bucket, options) {
  if (options.delimiter) return listObjects.call(this, bucket, options);
  const { startAfter = '', maxKeys = Infinity } = options;
  const all = await listObjects.call(this, bucket, { ...options, startAfter: '', maxKeys: Infinity });
  const later = all.objects
    .filter((object) => Buffer.compare(Buffer.from(object.key), Buffer.from(startAfter)) > 0)
    .sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  return { ...all, objects: later.slice(0, maxKeys), isTruncated: later.length > maxKeys };
};

// The request's path, found by its headers object (which the canonical request keeps).
const pathOf = new WeakMap();
const getStringToSign = v4.getStringToSign;
v4.getStringToSign = function stringToSignOfPathAsSent(canonicalRequest, request) {
  const sent = pathOf.get(canonicalRequest.headers);
  const uri = sent && sent === `${canonicalRequest.uri}/` ? sent : canonicalRequest.uri;
  return getStringToSign.call(this, { ...canonicalRequest, uri }, request);
};

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  vhostBuckets: false,
  configureBuckets: [{ name: bucket }],
});
server.middleware.unshift((ctx, next) => {
  pathOf.set(ctx.headers, ctx.path);
  return next();
});
server.run().then(
  ({ port }) => process.stdout.write(`${JSON.stringify({ port })}\n`),
  (error) => {
    process.stderr.write(`s3rver did not start: ${error.stack}\n`);
    process.exit(1);
  },
);
process.on('SIGTERM', () => {
  server.httpServer.closeAllConnections();
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
