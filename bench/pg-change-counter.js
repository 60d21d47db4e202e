// How a server learns that another server changed what it keeps in memory (issue 15; docs/deploy.md,
// "How several servers stay one catalog"): the cost of the check made before every image search,
// (a) the former fingerprint (count, sum of row ids, newest modification over every image with
// features: a scan) against (b) the change counter of PostgreSQL migration 5 (one primary-key read), at
// several catalog sizes; and (c) how late a LISTEN/NOTIFY message arrives after the commit, the
// window in which a server relying on it would answer from stale memory.
// Usage: CATALOG_BENCH_DATABASE_URL=postgres://... node bench/pg-change-counter.js [sizes...]
// (after npm run build).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { migratePostgres } from '../dist/adapters/postgres/migrations.js';
import { percentile } from './lib.js';

const url = process.env.CATALOG_BENCH_DATABASE_URL;
if (!url) throw new Error('set CATALOG_BENCH_DATABASE_URL');
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (sizes.length === 0) sizes.push(1_000, 10_000, 100_000);
const FEATURE_BYTES = 2_048;
const ROUNDS = 200;

async function timed(client, sql) {
  const ms = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await client.query(sql);
    ms.push(performance.now() - t);
  }
  ms.sort((x, y) => x - y);
  return `p50 ${percentile(ms, 50).toFixed(3)} ms, p99 ${percentile(ms, 99).toFixed(3)} ms`;
}

const schema = `bench_cc_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
const u = new URL(url);
u.searchParams.set('options', `-c search_path=${schema}`);
const pool = new pg.Pool({ connectionString: u.toString(), max: 2 });
try {
  await migratePostgres(pool);
  const c = await pool.connect();
  await c.query(`INSERT INTO parts (part_id, service_id, name, attributes, created_at, modified_at) VALUES ('p', 'p', '{}', '[]', 0, 0)`).catch(async () => {
    // Column set of parts differs between versions: take the first part the schema accepts.
    throw new Error('adapt the parts INSERT of bench/pg-change-counter.js to the schema');
  });
  let have = 0;
  console.log(`image rows with ${FEATURE_BYTES} B of features; ${ROUNDS} checks each`);
  for (const size of sizes) {
    await c.query(
      `INSERT INTO images (image_id, part_pk, sha256, size, mime, info, position, features, created_at, modified_at)
       SELECT 'i' || g, (SELECT pk FROM parts LIMIT 1), md5(g::text), 1, 'image/jpeg', 'searchable', NULL, decode(repeat(md5(g::text), $2 / 32), 'hex'), g, g
       FROM generate_series($1::int + 1, $3::int) g`,
      [have, FEATURE_BYTES * 2, size],
    );
    have = size;
    await c.query('VACUUM ANALYZE images');
    const scan = await timed(c, 'SELECT count(*) AS n, coalesce(sum(seq), 0) AS s, coalesce(max(modified_at), 0) AS m FROM images WHERE features IS NOT NULL');
    const counter = await timed(c, "SELECT version FROM change_counters WHERE name = 'image_features'");
    console.log(`${size.toLocaleString('en-US')} images: fingerprint scan ${scan}; change counter ${counter}`);
  }
  // LISTEN/NOTIFY: the delay between a commit on one connection and the message on another.
  const listener = new pg.Client({ connectionString: u.toString() });
  await listener.connect();
  await listener.query('LISTEN bench_changes');
  const delays = [];
  for (let i = 0; i < ROUNDS; i++) {
    const arrived = new Promise((resolve) => listener.once('notification', resolve));
    await c.query('BEGIN');
    await c.query(`UPDATE change_counters SET version = version + 1 WHERE name = 'image_features'`);
    await c.query(`NOTIFY bench_changes`);
    await c.query('COMMIT');
    const committed = performance.now();
    await arrived;
    delays.push(performance.now() - committed);
  }
  delays.sort((x, y) => x - y);
  console.log(`NOTIFY arrives after the COMMIT returned: p50 ${percentile(delays, 50).toFixed(3)} ms, p99 ${percentile(delays, 99).toFixed(3)} ms (a read in that window is stale)`);
  await listener.end();
  c.release();
} finally {
  await pool.end();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}
