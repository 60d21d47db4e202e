#!/usr/bin/env node
// `npm run bench`: the benchmarks a user feels in everyday use, each figure beside its raw baseline
// measured in the same run. Each writes its own section of bench/results.md (bench/lib.js
// writeSection); the raw figures go to bench/results.json. The other benchmarks (bench/README.md)
// take longer or need PostgreSQL and are run on their own.
// Usage: node bench/run.js [--quick]   (--quick: smaller sizes, for a smoke run; not for the record)
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { HTTP_TITLE, httpSection, runHttpBench } from './http.js';
import { IMAGE_QUALITY_TITLE, imageQualitySection, runImageQuality } from './image-quality.js';
import { IMPORT_TITLE, importSection, runImportBench } from './import.js';
import { ROOT, writeSection } from './lib.js';
import { RELATIONS_TITLE, relationsSection, runRelationsBench } from './relations.js';
import { SEARCH_EXPLAIN_TITLE, SEARCH_TITLE, runSearchBench, searchExplainSection, searchSection } from './search.js';
import { UPLOAD_TITLE, runUploadBench, uploadSection } from './upload.js';

const quick = process.argv.includes('--quick');
const command = `npm run bench${quick ? ' -- --quick (smaller sizes: not the record)' : ''}`;
const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const started = Date.now();
const results = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, quick };

log('import: parts from CSV through the CLI vs better-sqlite3');
results.import = await runImportBench({ parts: quick ? 20_000 : 100_000 });
writeSection('import', IMPORT_TITLE, importSection(results.import), { command });
log('relations: import through the local client vs better-sqlite3');
results.relations = await runRelationsBench(quick ? { parts: 10_000, relations: 20_000 } : {});
writeSection('relations', RELATIONS_TITLE, relationsSection(results.relations), { command });
log('http: catalog serve vs fastify with a fixed JSON body');
results.http = await runHttpBench({ seconds: quick ? 2 : 5 });
writeSection('http', HTTP_TITLE, httpSection(results.http), { command });
log('upload: catalog images upload vs curl');
results.upload = await runUploadBench(quick ? { images: 200, bigFiles: 6, bigMib: 19 } : {});
writeSection('upload', UPLOAD_TITLE, uploadSection(results.upload), { command });
log('search: text search over HTTP on generated parts');
results.search = await runSearchBench({ parts: quick ? 50_000 : 1_000_000, iterations: quick ? 50 : 300, warmup: quick ? 5 : 30, importParts: quick ? 10_000 : 50_000, log });
writeSection('search', SEARCH_TITLE, searchSection(results.search), { command });
writeSection('search:explain', SEARCH_EXPLAIN_TITLE, searchExplainSection(results.search), { command });
log('image search quality');
results.imageQuality = await runImageQuality({ images: quick ? 300 : 655, refs: 10_000, log: () => {} });
writeSection('image-quality', IMAGE_QUALITY_TITLE, imageQualitySection(results.imageQuality), { command });
results.seconds = Math.round((Date.now() - started) / 1000);

writeFileSync(join(ROOT, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
log(`wrote bench/results.md and bench/results.json in ${results.seconds} s`);
