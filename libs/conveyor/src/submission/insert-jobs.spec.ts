import { SqlRunner } from '../storage/connections/sql-runner.interface';
import { IdempotencyConflictError } from '../errors/job-request.errors';
import { jobInsertMany } from '../storage/statements';
import { FailedRow, insertJobs, insertJobsEach } from './insert-jobs';
import { JobRow } from '../storage/statements/job-row.mapper';
import { SPEC_TABLES as tables } from '../../../../test/support/sql-tables.fixture';
import { newJobRow as request } from '../../../../test/support/new-job-row.fixture';

/** A runner that answers statements from a script, by what they start with, and records them. */
function scripted(answers: Array<[RegExp, JobRow[]]>): SqlRunner & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    query: <R>(text: string) => {
      const at = answers.findIndex(([pattern]) => pattern.test(text));
      if (at < 0) throw new Error(`unexpected statement: ${text}`);
      const [[pattern, rows]] = answers.splice(at, 1);
      seen.push(String(pattern));
      return Promise.resolve({ rows: rows as R[], rowCount: rows.length });
    },
  };
}

const INSERT = /^\s*INSERT/;
const BATCH_INSERT = /^\s*WITH inserted AS \(/;

function returned(id: string, seq: string, at: Date): JobRow {
  return { id, seq, status: 'PENDING', run_at: at, created_at: at };
}
const BY_IDEMPOTENCY = /idempotency_key = ANY/;
const BY_UNIQUE = /unnest\(\$1::text\[\], \$2::text\[\]\)/;

describe('insertJobs', () => {
  it('rows without keys take one statement, answered by one row for the batch and completed from the request', async () => {
    const [a, b] = [request({ payload: { n: 1 } }), request({ payload: { n: 2 }, queue: 'q' })];
    const now = new Date();
    const runner = scripted([[BATCH_INSERT, [{ now, seqs: '1,2', timed: null }]]]);
    const { answers, created } = await insertJobs(runner, tables, [a, b]);
    expect(answers.map((r) => [r.id, r.seq, r.payload, r.queue])).toEqual([
      [a.id, '1', { n: 1 }, 'default'],
      [b.id, '2', { n: 2 }, 'q'],
    ]);
    expect(answers[0]).toMatchObject({
      status: 'PENDING',
      attempts: 0,
      version: 1,
      errors: [],
      run_at: now,
      created_at: now,
      updated_at: now,
    });
    // Each row has Dates of its own: a caller changing one changes no other job.
    expect(answers[0].run_at).not.toBe(answers[1].run_at);
    expect(created).toHaveLength(2);
    expect(runner.seen).toHaveLength(1);
  });

  it("a batch's seqs come in id order and its timed rows by id, whatever the request order", async () => {
    const [early, late] = [request({ id: '0001' }), request({ id: '0002', delay_ms: 60_000 })];
    const now = new Date('2026-11-24T10:00:00.000Z');
    const due = now.getTime() + 60_000;
    const runner = scripted([[BATCH_INSERT, [{ now, seqs: '7,9', timed: [['0002', 'SCHEDULED', due]] }]]]);
    const { answers } = await insertJobs(runner, tables, [late, early]);
    expect(answers.map((r) => [r.id, r.seq, r.status, (r.run_at as Date).getTime()])).toEqual([
      ['0002', '9', 'SCHEDULED', due],
      ['0001', '7', 'PENDING', now.getTime()],
    ]);
  });

  it('a batch answered with fewer rows than it sent is an error, not a silent gap', async () => {
    const runner = scripted([[BATCH_INSERT, [{ now: new Date(), seqs: '1', timed: null }]]]);
    await expect(insertJobs(runner, tables, [request(), request()])).rejects.toThrow(/batch of 2 jobs came back with 1/);
  });

  it('a statement without keys leaves out ON CONFLICT; one with a key keeps it', () => {
    expect(jobInsertMany(tables, [request()]).text).not.toContain('ON CONFLICT');
    expect(jobInsertMany(tables, [request(), request({ unique_key: 'u' })]).text).toContain('ON CONFLICT DO NOTHING');
    expect(jobInsertMany(tables, [request({ idempotency_key: 'k' })]).text).toContain('ON CONFLICT DO NOTHING');
  });

  it('a skipped unique row is answered with the waiting job that holds its key', async () => {
    const holder = { id: 'h', seq: '1', type: 'T', unique_key: 'u' };
    const runner = scripted([
      [INSERT, []],
      [BY_UNIQUE, [holder]],
    ]);
    const { answers, created } = await insertJobs(runner, tables, [request({ unique_key: 'u' })]);
    expect(answers).toEqual([holder]);
    expect(created).toEqual([]);
  });

  it('inserts again when the holder finished between the skipped insert and the read', async () => {
    const row = request({ unique_key: 'u' });
    const runner = scripted([
      [INSERT, []],
      [BY_UNIQUE, []],
      [INSERT, [returned(row.id, '2', new Date())]],
    ]);
    const { answers, created } = await insertJobs(runner, tables, [row]);
    expect(answers.map((r) => [r.id, r.unique_key])).toEqual([[row.id, 'u']]);
    expect(created).toEqual(answers);
  });

  it('an idempotency key answers first, and a different request under it is a 409', async () => {
    const stored = { id: 'i', seq: '1', type: 'T', idempotency_key: 'k', idempotency_hash: 'h1', unique_key: 'u' };
    const same = scripted([
      [INSERT, []],
      [BY_IDEMPOTENCY, [stored]],
    ]);
    const row = request({ idempotency_key: 'k', idempotency_hash: 'h1', unique_key: 'u' });
    expect((await insertJobs(same, tables, [row])).answers).toEqual([stored]);
    const other = scripted([
      [INSERT, []],
      [BY_IDEMPOTENCY, [stored]],
    ]);
    await expect(insertJobs(other, tables, [{ ...row, idempotency_hash: 'h2' }])).rejects.toThrow(IdempotencyConflictError);
  });

  it('throws a failed statement as it is, without sending its rows again, unless told the rows are independent', async () => {
    const refused = Object.assign(new Error('refused'), { code: '22023' });
    let statements = 0;
    const failing: SqlRunner = {
      query: () => {
        statements++;
        return Promise.reject(refused);
      },
    };
    await expect(insertJobs(failing, tables, [request(), request()])).rejects.toBe(refused);
    expect(statements).toBe(1);
    // Independent rows: halves until each row fails on its own (2 → 1 + 1), and no row is thrown.
    const { answers } = await insertJobsEach(failing, tables, [request(), request()], { independent: { retryOn: failing } });
    expect(answers).toEqual([new FailedRow(refused), new FailedRow(refused)]);
    expect(statements).toBe(4);
  });

  it('gives up with a 409 after a few rounds of holders that keep finishing', async () => {
    const script: Array<[RegExp, JobRow[]]> = [];
    for (let i = 0; i < 5; i++) script.push([INSERT, []], [BY_UNIQUE, []]);
    await expect(insertJobs(scripted(script), tables, [request({ unique_key: 'u' })])).rejects.toMatchObject({ status: 409 });
  });
});
