/**
 * `npm run bench`: Conveyor against a reference "floor" queue on the same PostgreSQL.
 * `node -r ./test/support/register-ts.js bench/run.ts [--quick] [--help]`
 *
 * For each repetition, case and variant (floor, floor-pipelined, floor-conveyor-table, skip-locked, optimistic;
 * caseRunsVariant says which run a case) it creates a schema, runs the case in its own Node process (from a
 * compiled copy of the repository, unless `--from-source`), drops the schema and prints the case's JSON line. At
 * the end it prints the tables and writes the Markdown report and its SVG chart (see docs/performance.md for the
 * method). The report's hand-written "Where the time goes" section is carried over from the file it replaces.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { BenchDatabase, openBenchDatabase } from './database/bench-database';
import { COMPILED_COPY_ENV } from './processes/bench-child';
import { compileRepositoryCopy, removeRepositoryCopy } from './processes/compiled-copy';
import { killCurrentCase, runCaseProcess } from './processes/run-case-process';
import { textTable } from './report/format';
import { describeMachine } from './report/machine-info';
import { keptAnalysis } from './report/kept-analysis';
import { renderMarkdownReport } from './report/markdown-report';
import { renderRatioChart } from './report/ratio-chart.svg';
import { resultTables } from './report/result-tables';
import { summarize } from './report/summary';
import { CaseResult, CaseSpec, caseRunsVariant } from './shared/bench-case';
import { BenchOptions, BenchOptionsError, parseBenchOptions } from './shared/bench-options';

const ROOT = join(__dirname, '..');

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2), process.env);
  const runTag = `bench-${randomBytes(3).toString('hex')}`;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`Starting ${options.databaseUrl ? 'with DATABASE_URL' : 'embedded PostgreSQL'}…`);
  const db = await openBenchDatabase(options.databaseUrl, runTag);

  let interrupted = false;
  process.on('SIGINT', () => {
    interrupted = true;
    log('Interrupted: stopping after the current case.');
    killCurrentCase();
  });

  const startedAt = new Date();
  const machine = describeMachine(db);
  const results: CaseResult[] = [];
  try {
    log(`${db.description}, PostgreSQL ${db.serverVersion}; PostgreSQL CPU: ${machine.pgCpuMethod}`);
    if (!options.fromSource) {
      process.env[COMPILED_COPY_ENV] = compileRepositoryCopy(ROOT);
      log(`Case processes run a compiled copy (${process.env[COMPILED_COPY_ENV]}); --from-source compiles on the fly`);
    }
    for (let rep = 1; rep <= options.repeat && !interrupted; rep++) {
      for (const name of options.cases) {
        for (const variant of options.variants) {
          if (interrupted) break;
          if (!caseRunsVariant(name, variant)) continue;
          results.push(await runOne(db, options, { case: name, variant, rep }, runTag, log));
        }
      }
    }
  } finally {
    await db.stop();
    if (process.env[COMPILED_COPY_ENV]) removeRepositoryCopy(process.env[COMPILED_COPY_ENV]);
  }

  const summary = summarize(results, options.variants, options.repeat, options.sizes);
  const tables = resultTables(summary);
  process.stdout.write(`\n${textTable(tables.ratios)}\n\n${textTable(tables.absolute)}\n\n${textTable(tables.cpu)}\n`);
  for (const f of summary.failures) process.stdout.write(`FAILED ${f.case}/${f.variant}/run ${f.rep}: ${f.error}\n`);

  const reportPath = resolve(ROOT, options.out);
  const chartPath = join(dirname(reportPath), `${basename(reportPath, '.md')}.svg`);
  const mode = options.quick ? 'quick mode, ' : '';
  const chart = renderRatioChart(
    summary.ratioRows,
    'Conveyor as a ratio of the floor queue',
    `${mode}median of ${options.repeat} run${options.repeat === 1 ? '' : 's'}; ${machine.cpus} CPUs, PostgreSQL ${machine.postgres}, Node ${machine.node}`,
  );
  const markdown = renderMarkdownReport({
    options,
    machine,
    loadAtEnd: loadavg()[0],
    startedAt,
    minutes: (Date.now() - startedAt.getTime()) / 60_000,
    summary,
    tables,
    results,
    chartFile: basename(chartPath),
    analysis: keptAnalysis(await readFile(reportPath, 'utf8').catch(() => undefined)),
  });
  await mkdir(dirname(reportPath), { recursive: true });
  await writeFile(chartPath, chart);
  await writeFile(reportPath, markdown);
  process.stdout.write(`\nWrote ${reportPath}\nWrote ${chartPath}\n`);
  if (summary.failures.length > 0 || interrupted) process.exitCode = 1;
}

/** One case in its own process on its own schema; prints its JSON line. */
async function runOne(
  db: BenchDatabase,
  options: BenchOptions,
  who: Pick<CaseSpec, 'case' | 'variant' | 'rep'>,
  runTag: string,
  log: (line: string) => void,
): Promise<CaseResult> {
  log(`run ${who.rep}/${options.repeat}  ${who.case.padEnd(12)} ${who.variant}`);
  const schema = await db.createSchema(`${who.case}_${who.variant}`);
  try {
    const spec: CaseSpec = { ...who, url: db.url, schema, appName: runTag, sizes: options.sizes, pgCpu: db.pgCpu };
    const result = await runCaseProcess(spec, options.caseTimeoutMs);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    await db.dropSchema(schema);
  }
}

main().catch((err: unknown) => {
  if (err instanceof BenchOptionsError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(err.isHelp ? 0 : 2);
  }
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
