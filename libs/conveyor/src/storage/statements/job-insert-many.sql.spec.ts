import { SPEC_TABLES as tables } from '../../../../../test/support/sql-tables.fixture';
import { jobInsertBatch, commonFields } from './job-insert-many.sql';
import { NewJobRow } from './new-job-row';
import { newJobRow as row } from '../../../../../test/support/new-job-row.fixture';

describe('commonFields', () => {
  it('answers the fields rows of one kind have in common', () => {
    const rows = [row({ queue: 'q', priority: 3, delay_ms: 500 }), row({ queue: 'q', priority: 3, delay_ms: 500 })];
    expect(commonFields(rows)).toEqual({ queue: 'q', type: 'T', priority: 3, run_at: null, delay_ms: 500, max_attempts: 5 });
  });

  it.each<[string, Partial<NewJobRow>]>([
    ['queue', { queue: 'other' }],
    ['type', { type: 'U' }],
    ['priority', { priority: 1 }],
    ['run_at', { run_at: '2030-01-01T00:00:00.000Z' }],
    ['delay_ms', { delay_ms: 1 }],
    ['max_attempts', { max_attempts: 1 }],
  ])('is null when one row has another %s', (_, over) => {
    expect(commonFields([row(), row(), row(over)])).toBeNull();
  });

  it.each<[string, Partial<NewJobRow>]>([
    ['an idempotency key', { idempotency_key: 'k', idempotency_hash: 'h' }],
    ['a unique key', { unique_key: 'u' }],
  ])('is null when a row carries %s', (_, over) => {
    expect(commonFields([row(over), row(over)])).toBeNull();
  });

  it('is null for no rows', () => {
    expect(commonFields([])).toBeNull();
  });
});

describe('jobInsertBatch', () => {
  it('sends rows of one kind as ids and payloads, and their other fields once', () => {
    const rows = [row({ queue: 'q', delay_ms: 500 }), row({ queue: 'q', delay_ms: 500, payload: undefined })];
    const statement = jobInsertBatch(tables, rows);
    expect(statement.values).toEqual([
      `[{"i":"${rows[0].id}","p":${JSON.stringify(rows[0].payload)}},{"i":"${rows[1].id}","p":null}]`,
      'q',
      'T',
      0,
      null,
      500,
      5,
    ]);
    expect(statement.text).toContain('AS (i uuid, p jsonb)');
  });

  it('sends every field of every row when the rows differ', () => {
    const rows = [row(), row({ priority: 9 })];
    const statement = jobInsertBatch(tables, rows);
    expect(statement.values).toHaveLength(1);
    expect(JSON.parse(statement.values[0] as string)).toEqual([
      { i: rows[0].id, q: 'default', t: 'T', p: rows[0].payload, pr: 0, ma: 5 },
      { i: rows[1].id, q: 'default', t: 'T', p: rows[1].payload, pr: 9, ma: 5 },
    ]);
  });

  it('names the two forms apart, so each is prepared once per connection', () => {
    const uniform = jobInsertBatch(tables, [row(), row()]);
    const general = jobInsertBatch(tables, [row(), row({ type: 'U' })]);
    expect(uniform.name).not.toBe(general.name);
    expect(jobInsertBatch(tables, [row(), row()], true).name).not.toBe(uniform.name);
    expect(jobInsertBatch(tables, [row(), row()], false, true).name).not.toBe(uniform.name);
  });

  it('counts a delay from the statement only when asked (a caller’s transaction), from now() otherwise', () => {
    const rows = [row({ delay_ms: 500 }), row({ delay_ms: 500 })];
    expect(jobInsertBatch(tables, rows).text).not.toContain('statement_timestamp()');
    expect(jobInsertBatch(tables, rows, false, true).text).toContain('statement_timestamp()');
  });
});
