import { artifactIdOf, artifactMimeType, rasterTypeOf } from './artifact-bytes';

describe('artifact bytes', () => {
  it('names bytes by their SHA-256, lowercase hex', () => {
    expect(artifactIdOf(Buffer.from('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('knows PNG, JPEG, GIF and WebP by their magic bytes, and nothing else', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    expect(rasterTypeOf(png)).toBe('image/png');
    expect(rasterTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(rasterTypeOf(Buffer.from('GIF89a....'))).toBe('image/gif');
    expect(rasterTypeOf(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(
      rasterTypeOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>x</script></svg>')),
    ).toBeNull();
    expect(rasterTypeOf(Buffer.from('RIFF\0\0\0\0WAVE'))).toBeNull();
    expect(rasterTypeOf(png.subarray(0, 4))).toBeNull();
  });

  it('keeps a declared content type only when it is one', () => {
    expect(artifactMimeType('Image/PNG; charset=binary')).toBe('image/png');
    expect(artifactMimeType('image/svg+xml')).toBe('image/svg+xml');
    expect(artifactMimeType('text/html\r\nX-Evil: 1')).toBe('application/octet-stream');
    expect(artifactMimeType(undefined)).toBe('application/octet-stream');
  });
});
