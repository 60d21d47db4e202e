// The image audit (POST /1/catalog/images/audit, `catalog images audit`) on real references: what
// one audited reference costs (wall and this process's CPU, every condition), beside what one
// photo search of one of its query photos costs in the same run (the audit is a photo search per
// condition plus making the photos); the share of references found at rank 1 per condition; and
// the bytes of query photos a client-side audit would have uploaded per reference (the endpoint
// sends none: the measurement behind docs/decisions/0025-image-audit-on-the-server.md).
//
// Usage (after `npm run build`): node bench/image-audit.js [--references 100] [--seed 44] [--images unseen]
// References: a seeded sample of ../shared/data/images (or, with --images unseen, of the icons and
// pictures Debian packages install under /usr/share: bench/photo-queries.js unseenImages), each its
// own part's searchable image. An unseen run writes its own section (image-audit:unseen).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { loadavg } from 'node:os';
import path from 'node:path';
import { argReader, cpuMs, msStats, prng, round, tempDir, writeSection } from './lib.js';
import { IMAGE_DIR, unseenImages } from './photo-queries.js';

const DIST = '../dist';
const { openCatalog } = await import(`${DIST}/open-catalog.js`);
const { LOCAL_OWNER } = await import(`${DIST}/core/permissions.js`);
const { createSharpReferenceProbe } = await import(`${DIST}/adapters/images/photo-conditions.js`);
const { DecodePool } = await import(`${DIST}/adapters/images/decode-pool.js`);
const { AUDIT_CONDITIONS, MAX_AUDIT_IMAGES } = await import(`${DIST}/api/image-schemas.js`);

const arg = argReader(process.argv.slice(2));
const N = Number(arg('references', '100'));
const SEED = Number(arg('seed', '44'));
const log = (s) => console.error(s);

const unseen = arg('images', 'shared') === 'unseen' ? await unseenImages(log) : undefined;
const bytesOf = (f) => unseen?.get(f) ?? fs.readFileSync(path.join(IMAGE_DIR, f));
const files = (unseen ? [...unseen.keys()] : fs.readdirSync(IMAGE_DIR).filter((f) => f.endsWith('.jpg'))).sort();
const rnd = prng(SEED);
for (let i = files.length - 1; i > 0; i--) {
  const j = Math.floor(rnd() * (i + 1));
  [files[i], files[j]] = [files[j], files[i]];
}
const sample = files.slice(0, N).sort();
const dir = tempDir('catalog-bench-audit-');
const catalog = openCatalog({ dataDir: dir });
const partOf = (f) => `part:${f.replace(/\.jpg$/, '')}`;
await catalog.service.upsertParts(LOCAL_OWNER, sample.map((f) => ({ part_id: partOf(f), name: { en: f } })));
for (let i = 0; i < sample.length; i += 50) {
  const batch = sample.slice(i, i + 50);
  const result = await catalog.images.uploadImages(
    LOCAL_OWNER,
    batch.map((f) => ({ image_id: f.replace(/\.jpg$/, ''), part_id: partOf(f), info: 'searchable' })),
    batch.map((f) => ({ filename: f, source: Readable.from([bytesOf(f)]) })),
  );
  if (Object.keys(result.errors).length > 0) throw new Error(`upload: ${JSON.stringify(result.errors).slice(0, 300)}`);
}
log(`${sample.length} references uploaded`);

// Warm the photo index and the feature threads, as a running server has them.
await catalog.images.auditImages(LOCAL_OWNER, { query: { image_ids: [sample[0].replace(/\.jpg$/, '')] }, conditions: ['copy'] });

const loadBefore = loadavg()[1];
const perReference = [];
const cpuPerReference = [];
const found = new Map(AUDIT_CONDITIONS.map((c) => [c, { first: 0, top5: 0, all: 0 }]));
const advised = { any: 0, size: 0, blank: 0, details: 0, twin: 0, outline: 0 };
let after;
for (;;) {
  const c0 = cpuMs();
  const t0 = performance.now();
  const page = await catalog.images.auditImages(LOCAL_OWNER, { paging: { limit: 1, ...(after ? { last_object_id: after } : {}) } });
  const wall = performance.now() - t0;
  const cpu = cpuMs() - c0;
  for (const r of page.result) {
    perReference.push(wall / page.result.length);
    cpuPerReference.push(cpu / page.result.length);
    for (const c of r.conditions) {
      const t = found.get(c.condition);
      t.all++;
      if (c.rank === 1) t.first++;
      else (t.missed ??= []).push(r.image_id);
      if (c.rank !== null && c.rank <= 5) t.top5++;
    }
    if (r.advice.length > 0) advised.any++;
    if (r.advice.some((a) => /px/.test(a) && /at least/.test(a))) advised.size++;
    if (r.advice.some((a) => a.includes('nearly blank'))) advised.blank++;
    if (r.advice.some((a) => a.includes('few distinct details'))) advised.details++;
    if (r.advice.some((a) => a.includes('is found first for a copy'))) advised.twin++;
    if (r.advice.some((a) => a.includes('which a bench replaces'))) advised.outline++;
  }
  if (perReference.length % 10 === 0) log(`  audited ${perReference.length} (${round(wall, 0)} ms the last)`);
  if (!page.more_data) break;
  after = page.last_object_id;
}

// Baseline: one photo search of one query photo (the `angle` photo of each of 20 references), and
// the bytes a client would upload to audit a reference through the search endpoint.
const probe = createSharpReferenceProbe(new DecodePool({ concurrency: 1, maxQueue: 16 }));
const searchMs = [];
const bytesPerReference = [];
for (const f of sample.slice(0, 20)) {
  const photos = await probe.photos(bytesOf(f), AUDIT_CONDITIONS);
  bytesPerReference.push([...photos.values()].reduce((s, b) => s + b.length, 0));
  const t0 = performance.now();
  await catalog.search.search(LOCAL_OWNER, { resultOptions: { limit: 20 } }, { bytes: photos.get('angle') });
  searchMs.push(performance.now() - t0);
}
await catalog.close();
fs.rmSync(dir, { recursive: true, force: true });

const loadAfter = loadavg()[1];
const ref = msStats(perReference);
const cpu = msStats(cpuPerReference);
const one = msStats(searchMs);
const kb = bytesPerReference.reduce((s, b) => s + b, 0) / bytesPerReference.length / 1024;
const share = (x, n) => `${round((100 * x) / n, 0)} %`;
const rows = AUDIT_CONDITIONS.map((c) => {
  const t = found.get(c);
  return `| ${c} | ${share(t.first, t.all)} | ${share(t.top5, t.all)} |`;
});
const body = [
  `${sample.length} references (a seeded sample of ${unseen ? 'the unseen images under /usr/share' : '../shared/data/images'}, seed ${SEED}), each its own part's searchable image; ${AUDIT_CONDITIONS.length} conditions; one reference per call (a call takes up to ${MAX_AUDIT_IMAGES}), one call at a time. The machine is shared (2 cores; 5-minute load average ${round(loadBefore, 1)} before the audit, ${round(loadAfter, 1)} after): read the times as a range, the CPU row as the cost.`,
  '',
  '| | p50 | p99 | mean |',
  '|---|---|---|---|',
  `| one audited reference, wall (ms) | ${round(ref.p50, 0)} | ${round(ref.p99, 0)} | ${round(ref.mean, 0)} |`,
  `| one audited reference, this process's CPU (ms) | ${round(cpu.p50, 0)} | ${round(cpu.p99, 0)} | ${round(cpu.mean, 0)} |`,
  `| baseline: one photo search of one query photo, wall (ms) | ${round(one.p50, 0)} | ${round(one.p99, 0)} | ${round(one.mean, 0)} |`,
  '',
  `Query photos a client-side audit would upload: ${round(kb, 0)} KB per reference (mean of ${bytesPerReference.length}; the endpoint uploads none).`,
  '',
  '| condition | found at rank 1 | in the first 5 |',
  '|---|---|---|',
  ...rows,
  '',
  `Advice given for ${advised.any} of ${sample.length} references: size ${advised.size}, blank ${advised.blank}, few details ${advised.details}, a copy found first on another part ${advised.twin}, lost on the bench only (its outline) ${advised.outline}.`,
].join('\n');
console.log(JSON.stringify({ references: sample.length, perReference: ref, cpu, oneSearch: one, kbPerReference: kb, found: Object.fromEntries(found), advised }));
writeSection(unseen ? 'image-audit:unseen' : 'image-audit', `Image audit: cost per reference and findability per condition${unseen ? ' (unseen images)' : ''}`, body);
