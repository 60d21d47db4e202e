/**
 * A throwaway S3-compatible server for tests: s3rver, a Node implementation of the S3
 * REST wire protocol (signature V4, XML, multipart uploads) storing objects in a temp directory,
 * driven through the real AWS SDK v3 client. Chosen over Scality's CloudServer because the npm
 * registry copy of CloudServer (@zenko/cloudserver 8.0.0-beta) depends on GitHub branches and
 * aws-sdk v2 and cannot be installed from the registry alone (docs/deploy.md, "Tests").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { freePort } from './postgres-cluster.js';

/** Where the test server listens and the credentials it accepts (s3rver's fixed pair). */
export interface S3TestServer {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A bucket created at start. */
  bucket: string;
  stop(): Promise<void>;
}

/** Starts s3rver on a free loopback port with one bucket. */
export async function startS3Server(bucket = 'catalog-test'): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'catalog-s3-'));
  const port = await freePort();
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  // s3rver's file store lets a stream emit 'error' unheard when two requests race on one key
  // prefix (ENOENT on its temporary object file): that request fails, and the client retries it,
  // but unheard it would end this process, the test runner. Only errors on its own files are kept.
  const storeRace = (error: Error & { path?: unknown }) => {
    if (typeof error.path !== 'string' || !error.path.startsWith(directory)) throw error;
    process.stderr.write(`s3 test server: ${error.message}\n`);
  };
  process.on('uncaughtException', storeRace);
  try {
    await server.run();
  } catch (error) {
    process.off('uncaughtException', storeRace);
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    bucket,
    async stop() {
      await server.close();
      process.off('uncaughtException', storeRace);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
