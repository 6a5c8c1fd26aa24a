import { FileObjectStore } from './file-object-store';
import { objectStoreFrom } from './object-store.factory';
import { ObjectStoreError } from './object-store';
import { S3ObjectStore, parseS3Url } from './s3-object-store';

describe('objectStoreFrom', () => {
  it('makes the file driver of a file:// URL, relative to the working directory given', () => {
    const store = objectStoreFrom(
      { objectStoreUrl: 'file://./.vigil/objects', s3Endpoint: undefined, s3ForcePathStyle: false },
      '/srv/vigil',
    );
    expect(store).toBeInstanceOf(FileObjectStore);
    expect(store.location).toBe('file:///srv/vigil/.vigil/objects');
  });

  it('makes the S3 driver of an s3:// URL, its location naming no credentials of the endpoint', () => {
    const store = objectStoreFrom({
      objectStoreUrl: 's3://my-bucket/vigil/prod',
      s3Endpoint: 'https://user:pass@minio.internal:9000',
      s3ForcePathStyle: true,
    });
    expect(store).toBeInstanceOf(S3ObjectStore);
    expect(store.location).toBe('s3://my-bucket/vigil/prod/ at https://minio.internal:9000');
  });
});

describe('parseS3Url', () => {
  it('reads the bucket and a prefix that always ends in a slash (or is empty)', () => {
    expect(parseS3Url('s3://bucket')).toEqual({ bucket: 'bucket', prefix: '' });
    expect(parseS3Url('s3://bucket/')).toEqual({ bucket: 'bucket', prefix: '' });
    expect(parseS3Url('s3://b.u-c/a/b/')).toEqual({ bucket: 'b.u-c', prefix: 'a/b/' });
  });

  it('refuses anything else, and a prefix that could climb', () => {
    for (const url of ['file://x', 's3://', 's3://UPPER/x', 's3://b?x=1'])
      expect(() => parseS3Url(url)).toThrow(ObjectStoreError);
    for (const url of ['s3://bucket/../x', 's3://bucket/a//b']) expect(() => parseS3Url(url)).toThrow();
  });
});
