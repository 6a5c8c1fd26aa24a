import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { artifactIdOf } from '@vigil/tasks';
import { testGateway } from '@vigil/testing';
import type { CatalogToolGateway } from '../catalog-tool-gateway';

/** An HTTP tool answering an image or another binary type: an artifact reference, its bytes beside it. */
describe('HTTP tools answering bytes', () => {
  let server: Server;
  let gateway: CatalogToolGateway;
  let png: Buffer;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    png = await sharp({ create: { width: 12, height: 7, channels: 3, background: '#00ff00' } })
      .png()
      .toBuffer();
    server = createServer((req, res) => {
      if (req.url?.startsWith('/chart')) res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else if (req.url?.startsWith('/pdf'))
        res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const tool = (path: string) => ({
      description: path,
      method: 'GET',
      url: `${base}${path}`,
      input: { type: 'object' },
    });
    gateway = testGateway(
      {
        httpTools: { chart: tool('/chart'), report: tool('/pdf'), status: tool('/status') },
        tenants: { acme: { allow: ['chart', 'report', 'status'] } },
      },
      { allowPrivate: true },
    );
  });
  afterAll(async () => {
    await gateway.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps an image or a PDF as bytes with a reference, JSON as JSON', async () => {
    const [chart, report, status] = await gateway.toolsFor('acme', ['chart', 'report', 'status'], signal);
    const image = await chart.call({}, { signal });
    const ref = { id: artifactIdOf(png), mimeType: 'image/png', bytes: png.length, width: 12, height: 7 };
    expect(image.raw).toEqual({ artifact: ref });
    expect(image.binaries?.[0].data).toEqual(png);
    expect(image.text).toBe(`[image ${ref.id} image/png 12x7, ${png.length} bytes]`);
    const pdf = await report.call({}, { signal });
    expect(pdf.raw).toEqual({
      artifact: { id: artifactIdOf(Buffer.from('%PDF-1.4')), mimeType: 'application/pdf', bytes: 8 },
    });
    expect((await status.call({}, { signal })).raw).toEqual({ ok: true });
  });
});
