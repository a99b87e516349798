import { MAX_STATEMENT_PAYLOAD_CHARS, rowsPerStatement } from './statement-budget';
import { newJobRow as row } from '../../../../test/support/new-job-row.fixture';

/** A row whose payload's JSON text is `chars` long. */
const weighing = (chars: number) => row({ payload: 'x'.repeat(chars - 2) });

describe('rowsPerStatement', () => {
  it('keeps rows that fit one statement together', () => {
    const rows = [row(), row(), row()];
    expect(rowsPerStatement(rows, 3)).toEqual([rows]);
  });

  it('cuts at maxRows, in order', () => {
    const rows = Array.from({ length: 7 }, () => row());
    expect(rowsPerStatement(rows, 3)).toEqual([rows.slice(0, 3), rows.slice(3, 6), rows.slice(6)]);
  });

  it('cuts at the payload budget, and sends a row larger than it alone', () => {
    const half = MAX_STATEMENT_PAYLOAD_CHARS / 2;
    const rows = [weighing(half), weighing(half), weighing(2), weighing(MAX_STATEMENT_PAYLOAD_CHARS + 1), weighing(2)];
    expect(rowsPerStatement(rows, 1000).map((s) => s.map((r) => rows.indexOf(r)))).toEqual([[0, 1], [2], [3], [4]]);
  });

  it('makes no statement for no rows', () => {
    expect(rowsPerStatement([], 10)).toEqual([]);
  });
});
