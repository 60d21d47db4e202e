// Driver choice for the PostgreSQL adapter (issue 15): node-postgres (`pg`) against porsager's
// `postgres`, the same work on the same server: N single-row INSERTs in one transaction, N
// primary-key SELECTs one after the other (the store's typical round trips), and one 1,000-row
// batch INSERT through unnest. Usage: CATALOG_BENCH_DATABASE_URL=postgres://... node bench/postgres-driver.js [N]
// (`postgres` is not a dependency: `npm install --no-save postgres` first).
import pg from 'pg';

const url = process.env.CATALOG_BENCH_DATABASE_URL;
if (!url) throw new Error('set CATALOG_BENCH_DATABASE_URL');
const n = Number(process.argv[2] ?? 5000);
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;
const rows = Array.from({ length: n }, (_, i) => [`part-${String(i).padStart(7, '0')}`, JSON.stringify({ en: `Part number ${i}` })]);

async function withPg() {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const c = await pool.connect();
  await c.query('DROP TABLE IF EXISTS drv_pg; CREATE TABLE drv_pg (id text PRIMARY KEY, name jsonb)');
  let t = process.hrtime.bigint();
  await c.query('BEGIN');
  for (const [id, name] of rows) await c.query({ name: 'ins', text: 'INSERT INTO drv_pg VALUES ($1, $2)', values: [id, name] });
  await c.query('COMMIT');
  const insert = ms(t);
  t = process.hrtime.bigint();
  for (const [id] of rows) await c.query({ name: 'sel', text: 'SELECT * FROM drv_pg WHERE id = $1', values: [id] });
  const select = ms(t);
  t = process.hrtime.bigint();
  await c.query('INSERT INTO drv_pg SELECT x.id || \'b\', x.name::jsonb FROM unnest($1::text[], $2::text[]) AS x(id, name)', [rows.slice(0, 1000).map((r) => r[0]), rows.slice(0, 1000).map((r) => r[1])]);
  const batch = ms(t);
  c.release();
  await pool.end();
  return { insert, select, batch };
}

async function withPostgres() {
  const { default: postgres } = await import('postgres');
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql.unsafe('DROP TABLE IF EXISTS drv_js; CREATE TABLE drv_js (id text PRIMARY KEY, name jsonb)');
  let t = process.hrtime.bigint();
  await sql.begin(async (tx) => {
    for (const [id, name] of rows) await tx`INSERT INTO drv_js VALUES (${id}, ${name})`;
  });
  const insert = ms(t);
  t = process.hrtime.bigint();
  for (const [id] of rows) await sql`SELECT * FROM drv_js WHERE id = ${id}`;
  const select = ms(t);
  t = process.hrtime.bigint();
  await sql`INSERT INTO drv_js SELECT x.id || 'b', x.name::jsonb FROM unnest(${rows.slice(0, 1000).map((r) => r[0])}::text[], ${rows.slice(0, 1000).map((r) => r[1])}::text[]) AS x(id, name)`;
  const batch = ms(t);
  await sql.end();
  return { insert, select, batch };
}

for (let round = 0; round < 2; round++) {
  const a = await withPg();
  const b = await withPostgres();
  const f = (r) => `insert ${Math.round(n / (r.insert / 1000))}/s, select ${Math.round(n / (r.select / 1000))}/s, 1000-row batch ${r.batch.toFixed(1)} ms`;
  console.log(`round ${round + 1}, N=${n}\n  pg       ${f(a)}\n  postgres ${f(b)}`);
}
