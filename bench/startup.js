// Benchmark (issue 12, start-up): `catalog --version` and `catalog search x` on a small catalog
// beside `node -e 0`, in one run, commands alternated so load changes hit all alike. Reports the
// median and minimum wall time and the median CPU time (user + system, from wait4 via
// /usr/bin/time when present: fairer than wall time on a shared machine), and the ratios.
// Usage: node bench/startup.js [--runs 30]
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, isMain, runCli, tempDir, writeSection } from './lib.js';

const TIME = '/usr/bin/time';

function once(command, args) {
  const start = performance.now();
  const run = existsSync(TIME)
    ? spawnSync(TIME, ['-f', '%U %S', command, ...args], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  let cpuMs = NaN;
  if (existsSync(TIME)) {
    const last = run.stderr.trim().split('\n').pop() ?? '';
    const [user, sys] = last.split(' ').map(Number);
    cpuMs = ((user ?? NaN) + (sys ?? NaN)) * 1000;
  }
  return { ms, cpuMs };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Runs the benchmark; returns the figures (ms) per command and the ratios to `node -e 0`. */
export async function runStartupBench({ runs = 30 } = {}) {
  const dir = tempDir();
  try {
    const csv = join(dir, 'parts.csv');
    writeFileSync(csv, 'part_id,name.en\ncog-1,Cog wheel\ngear-1,Gear box\n');
    const dataDir = join(dir, 'catalog');
    const setup = await runCli(['--data-dir', dataDir, '--quiet', 'parts', 'import', csv]);
    if (setup.code !== 0) throw new Error(`parts import failed: ${setup.stderr}`);
    const commands = {
      'node -e 0': [process.execPath, ['-e', '0']],
      'catalog --version': [BIN, ['--version']],
      'catalog search x': [BIN, ['--data-dir', dataDir, 'search', 'cog']],
    };
    const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
    for (const [command, args] of Object.values(commands)) once(command, args); // warm the file cache
    for (let i = 0; i < runs; i++) {
      for (const [name, [command, args]] of Object.entries(commands)) samples[name].push(once(command, args));
    }
    const figures = {};
    for (const [name, list] of Object.entries(samples)) {
      figures[name] = {
        medianMs: Math.round(median(list.map((s) => s.ms))),
        minMs: Math.round(Math.min(...list.map((s) => s.ms))),
        medianCpuMs: Math.round(median(list.map((s) => s.cpuMs))),
      };
    }
    const base = figures['node -e 0'];
    const ratio = (name, key) => Number((figures[name][key] / base[key]).toFixed(2));
    return {
      runs,
      figures,
      ratios: Object.fromEntries(['catalog --version', 'catalog search x'].map((n) => [n, { median: ratio(n, 'medianMs'), min: ratio(n, 'minMs'), cpu: ratio(n, 'medianCpuMs') }])),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The section of bench/results.md for a {@link runStartupBench} result (Markdown). */
export function startupSection(r) {
  return [
    `Median of ${r.runs} runs each, commands alternated; wall and CPU time in ms. Baseline: \`node -e 0\`.`,
    '',
    '| command | median | min | median CPU | × node (median) | × node (CPU) |',
    '|---|---|---|---|---|---|',
    ...Object.entries(r.figures).map(([name, f]) => `| \`${name}\` | ${f.medianMs} | ${f.minMs} | ${f.medianCpuMs} | ${r.ratios[name]?.median ?? 1} | ${r.ratios[name]?.cpu ?? 1} |`),
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const arg = process.argv.indexOf('--runs');
  const result = await runStartupBench({ runs: arg > 0 ? Number(process.argv[arg + 1]) : 30 });
  console.log(JSON.stringify(result, null, 2));
  writeSection('startup', 'Start-up of the CLI', startupSection(result));
}
