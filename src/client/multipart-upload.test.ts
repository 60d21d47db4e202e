import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpCatalogClient } from './http-client.js';

/** A server answering each upload with the next canned status, recording every body it got. */
function fakeServer(statuses: number[]): Promise<{ server: Server; url: string; bodies: Buffer[] }> {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      const status = statuses.shift() ?? 200;
      res.statusCode = status;
      if (status === 200) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ created: ['a'], updated: [], errors: {} }));
      } else {
        res.setHeader('content-type', 'application/problem+json');
        if (status === 503) res.setHeader('retry-after', '0');
        res.end(JSON.stringify({ type: 'about:blank', title: 'x', status, detail: `failed with ${status}` }));
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, bodies });
    });
  });
}

describe('HttpCatalogClient.uploadImages', () => {
  let dir: string;
  let file: string;
  let server: Server | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'catalog-upload-'));
    file = join(dir, 'a.jpg');
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(700 * 1024, 7)]));
  });
  afterEach(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams a multipart body with an exact length and retries 503 by re-opening the files', async () => {
    const fake = await fakeServer([503, 502]);
    server = fake.server;
    const client = new HttpCatalogClient({ url: fake.url, token: 't', backoffMs: 1 });
    const result = await client.uploadImages([{ image_id: 'a', part_id: 'p', info: 'display' }], [{ filename: 'a "q"\\.jpg', path: file }, { filename: 'b', data: new Uint8Array([1, 2]) }]);
    await client.close();
    expect(result).toEqual({ created: ['a'], updated: [], errors: {} });
    expect(fake.bodies).toHaveLength(3);
    const [first, , last] = fake.bodies;
    expect(last?.equals(first ?? Buffer.alloc(0))).toBe(false); // a fresh boundary per attempt
    const text = last?.toString('latin1') ?? '';
    expect(text).toContain('Content-Disposition: form-data; name="images"\r\nContent-Type: application/json\r\n\r\n[{"image_id":"a","part_id":"p","info":"display"}]\r\n');
    expect(text).toContain('name="files"; filename="a \\"q\\"\\\\.jpg"');
    expect(last?.length).toBeGreaterThan(700 * 1024);
  });

  it('never retries a 4xx', async () => {
    const fake = await fakeServer([400, 200]);
    server = fake.server;
    const client = new HttpCatalogClient({ url: fake.url, token: 't', backoffMs: 1 });
    await expect(client.uploadImages([], [{ filename: 'a', path: file }])).rejects.toMatchObject({ code: 'bad_request', detail: 'failed with 400' });
    await client.close();
    expect(fake.bodies).toHaveLength(1);
  });
});
