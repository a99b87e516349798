import { SqlRunner } from '../database/sql-runner.interface';
import { IdempotencyConflictError } from '../errors/job-request.errors';
import { NewJobRow, SqlTables } from '../sql';
import { insertJobs } from './insert-jobs';
import { JobRow } from './job-row.mapper';

const tables: SqlTables = { schema: '"s"', jobs: '"s".conveyor_jobs', queues: '"s".conveyor_queues', key: 'k' };

function request(over: Partial<NewJobRow> = {}): NewJobRow {
  return {
    queue: 'default',
    type: 'T',
    payload: {},
    priority: 0,
    run_at: null,
    delay_ms: null,
    max_attempts: 5,
    idempotency_key: null,
    idempotency_hash: null,
    unique_key: null,
    ...over,
  };
}

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
const BY_IDEMPOTENCY = /idempotency_key = ANY/;
const BY_UNIQUE = /unnest\(\$1::text\[\], \$2::text\[\]\)/;

describe('insertJobs', () => {
  it('rows without keys take one statement and are answered in insertion order', async () => {
    const runner = scripted([[INSERT, [{ id: 'b', seq: '2' }, { id: 'a', seq: '1' }]]]);
    const { answers, created } = await insertJobs(runner, tables, [request(), request()]);
    expect(answers.map((r) => r.id)).toEqual(['a', 'b']);
    expect(created).toHaveLength(2);
    expect(runner.seen).toHaveLength(1);
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
    const fresh = { id: 'n', seq: '2', type: 'T', unique_key: 'u' };
    const runner = scripted([
      [INSERT, []],
      [BY_UNIQUE, []],
      [INSERT, [fresh]],
    ]);
    const { answers, created } = await insertJobs(runner, tables, [request({ unique_key: 'u' })]);
    expect(answers).toEqual([fresh]);
    expect(created).toEqual([fresh]);
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

  it('gives up with a 409 after a few rounds of holders that keep finishing', async () => {
    const script: Array<[RegExp, JobRow[]]> = [];
    for (let i = 0; i < 5; i++) script.push([INSERT, []], [BY_UNIQUE, []]);
    await expect(insertJobs(scripted(script), tables, [request({ unique_key: 'u' })])).rejects.toMatchObject({ status: 409 });
  });
});
