import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { SqlResult, SqlRunner } from '../storage/connections/sql-runner.interface';
import { DatabaseUnavailableError, IdempotencyConflictError } from '../errors/job-request.errors';
import { hasKeys, NewJobRow } from '../storage/statements';
import { JobRow } from '../storage/statements/job-row.mapper';
import { LocalPickup } from './local-pickup.port';
import { SharedInsertAnswer, SharedInsertService } from './shared-insert.service';
import { SOLO_PAYLOAD_CHARS } from './statement-budget';
import { SPEC_TABLES as tables } from '../../../../test/support/sql-tables.fixture';
import { newJobRow as request } from '../../../../test/support/new-job-row.fixture';

/** A request row as the insert statements carry it. */
interface SentRow {
  id: string;
  type: string;
  ik: string | null;
  ih: string | null;
  uk: string | null;
  payload: unknown;
}

/**
 * An in-memory jobs table behind a runner that speaks the engine's insert and key-holder statements, with every
 * statement recorded. An insert skips a row whose key is taken (ON CONFLICT DO NOTHING) and fails as a whole
 * when any of its rows carries `{ poison: true }` (as PostgreSQL fails a statement on one bad row).
 */
class FakeJobsTable {
  readonly stored: JobRow[] = [];
  /** Each statement: its kind and the ids it carried (for inserts). */
  readonly statements: Array<{ on: string; kind: string; ids: string[] }> = [];
  private seq = 0;
  /** Fails the next statement of this kind with this error. */
  failNext: { kind: string; error: unknown } | null = null;
  /** Holds statements until released, when set. */
  gate: Promise<void> | null = null;

  runner(on: string): SqlRunner {
    return { query: <R>(text: string, values: unknown[] = []) => this.query(on, text, values) as Promise<SqlResult<R>> };
  }

  private async query(on: string, text: string, values: unknown[]): Promise<SqlResult<unknown>> {
    const kind = /WITH inserted AS/.test(text)
      ? 'batch insert'
      : /^\s*INSERT/.test(text)
        ? 'insert'
        : /idempotency_key = ANY/.test(text)
          ? 'by idempotency key'
          : 'by unique key';
    const sent = kind.endsWith('insert') ? sentRows(text, values) : [];
    this.statements.push({ on, kind, ids: sent.map((r) => r.id) });
    if (this.gate) await this.gate;
    if (this.failNext?.kind === kind) {
      const { error } = this.failNext;
      this.failNext = null;
      throw error;
    }
    if (kind === 'by idempotency key')
      return answer(this.stored.filter((r) => (values[0] as string[]).includes(r.idempotency_key as string)));
    if (kind === 'by unique key') {
      const [types, keys] = values as [string[], string[]];
      return answer(this.stored.filter((r) => types.some((t, i) => r.type === t && r.unique_key === keys[i])));
    }
    if (sent.some((r) => (r.payload as { poison?: boolean } | null)?.poison))
      throw Object.assign(new Error('poisoned row'), { code: '22023' });
    const now = new Date();
    const inserted: JobRow[] = [];
    for (const r of sent) {
      if (this.stored.some((s) => (r.ik && s.idempotency_key === r.ik) || (r.uk && s.type === r.type && s.unique_key === r.uk))) continue;
      const row = {
        id: r.id,
        seq: String(++this.seq),
        type: r.type,
        status: 'PENDING',
        run_at: now,
        created_at: now,
        idempotency_key: r.ik,
        idempotency_hash: r.ih,
        unique_key: r.uk,
      };
      this.stored.push(row);
      inserted.push(row);
    }
    if (kind === 'batch insert') return answer([{ now, seqs: inserted.map((r) => r.seq).join(','), timed: null }]);
    return answer(inserted.map(({ id, seq, status, run_at, created_at }) => ({ id, seq, status, run_at, created_at })));
  }
}

function sentRows(text: string, values: unknown[]): SentRow[] {
  if (/json_to_recordset/.test(text)) {
    const doc = JSON.parse(values[0] as string) as Array<{ i: string; t: string; p: unknown; ik?: string; ih?: string; uk?: string }>;
    // A uniform batch sends the type once, as its third parameter (jobInsertBatch).
    return doc.map((r) => ({
      id: r.i,
      type: r.t ?? (values[2] as string),
      payload: r.p,
      ik: r.ik ?? null,
      ih: r.ih ?? null,
      uk: r.uk ?? null,
    }));
  }
  const v = values as [string, string, string, string | null, ...unknown[]];
  return [
    {
      id: v[0],
      type: v[2],
      payload: v[3] === null ? null : JSON.parse(v[3]),
      ik: v[8] as string | null,
      ih: v[9] as string | null,
      uk: v[10] as string | null,
    },
  ];
}

function answer(rows: unknown[]): Promise<SqlResult<unknown>> {
  return Promise.resolve({ rows, rowCount: rows.length, committedOn: 4242 });
}

/** A local pickup that takes every keyless group quietly on the worker runner when `quiet`, and records wake-ups. */
function fakePickup(table: FakeJobsTable, quiet = false): LocalPickup & { woken: number; quietGroups: string[][] } {
  const pickup = {
    woken: 0,
    quietGroups: [] as string[][],
    insertKeyless: <T>(rows: readonly NewJobRow[], insert: (runner: SqlRunner, quiet: boolean) => Promise<T>) => {
      if (!quiet) return insert(table.runner('pool'), false);
      pickup.quietGroups.push(rows.map((r) => r.id));
      return insert(table.runner('worker'), true);
    },
    committed: (inserts: readonly unknown[]) => void (pickup.woken += inserts.length),
  };
  return pickup;
}

function service(table: FakeJobsTable, pickup: LocalPickup, maxBatchSize = 1000): SharedInsertService {
  const db = { pool: table.runner('pool'), tables } as unknown as ConveyorDatabase;
  return new SharedInsertService(db, pickup, { maxBatchSize });
}

/** Submits a lone lead row, holds its statement, queues `rows` behind it, then releases: `rows` form one group. */
async function asOneGroup(
  shared: SharedInsertService,
  table: FakeJobsTable,
  rows: NewJobRow[],
): Promise<Array<PromiseSettledResult<SharedInsertAnswer>>> {
  // Whatever the test sent before is answered and off the batcher.
  await new Promise((resolve) => setImmediate(resolve));
  let release!: () => void;
  table.gate = new Promise((resolve) => (release = resolve));
  // Keyed submissions have a lane of their own: each lane's lead keeps the rows after it waiting.
  const leads = [shared.insert(request())];
  if (rows.some(hasKeys)) leads.push(shared.insert(request({ unique_key: `lead-${rows[0].id}` })));
  const answers = Promise.allSettled(rows.map((r) => shared.insert(r)));
  expect(shared.waiting).toBe(rows.length);
  table.gate = null;
  release();
  await Promise.all(leads);
  return answers;
}

const value = (r: PromiseSettledResult<SharedInsertAnswer>) => (r.status === 'fulfilled' ? r.value : undefined);
const reason = (r: PromiseSettledResult<SharedInsertAnswer>) => (r.status === 'rejected' ? (r.reason as unknown) : undefined);

describe('SharedInsertService', () => {
  it('sends a lone submission at once, as its own one-row statement', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    const row = request();
    const answered = shared.insert(row);
    // Before any await: the statement is already on the runner.
    expect(table.statements).toEqual([{ on: 'pool', kind: 'insert', ids: [row.id] }]);
    await expect(answered).resolves.toMatchObject({ stored: { id: row.id }, created: true });
  });

  it('inserts submissions that arrive while a statement is in flight with one shared statement', async () => {
    const table = new FakeJobsTable();
    const pickup = fakePickup(table);
    const shared = service(table, pickup);
    const rows = Array.from({ length: 50 }, () => request());
    const results = await asOneGroup(shared, table, rows);
    expect(results.map((r) => value(r)?.stored.id)).toEqual(rows.map((r) => r.id));
    expect(results.every((r) => value(r)?.created)).toBe(true);
    expect(table.statements.map((s) => [s.kind, s.ids.length])).toEqual([
      ['insert', 1],
      ['batch insert', 50],
    ]);
    // Each committed statement wakes this instance's workers once.
    expect(pickup.woken).toBe(2);
  });

  it('hands a keyless group to the local pickup, which may insert it quietly on the worker connection', async () => {
    const table = new FakeJobsTable();
    const pickup = fakePickup(table, true);
    const shared = service(table, pickup);
    const rows = [request(), request(), request()];
    await asOneGroup(shared, table, rows);
    expect(pickup.quietGroups.at(-1)).toEqual(rows.map((r) => r.id));
    expect(table.statements.at(-1)).toMatchObject({ on: 'worker', kind: 'batch insert' });
  });

  it('sends keyed rows in a lane of their own, beside the keyless ones, never quietly', async () => {
    const table = new FakeJobsTable();
    const pickup = fakePickup(table, true);
    const shared = service(table, pickup);
    const plain = [request(), request()];
    const keyed = [request({ idempotency_key: 'k1', idempotency_hash: 'h' }), request({ unique_key: 'u1' })];
    const results = await asOneGroup(shared, table, [plain[0], keyed[0], plain[1], keyed[1]]);
    expect(results.map((r) => value(r)?.created)).toEqual([true, true, true, true]);
    // After the two leads: each lane's group.
    expect(table.statements.slice(2)).toEqual(
      expect.arrayContaining([
        { on: 'worker', kind: 'batch insert', ids: plain.map((r) => r.id) },
        { on: 'pool', kind: 'insert', ids: keyed.map((r) => r.id) },
      ]),
    );
    expect(table.statements).toHaveLength(4);
    expect(pickup.quietGroups.at(-1)).toEqual(plain.map((r) => r.id));
  });

  it('answers a repeated idempotency key in one group with the first request’s job, and a different request under it with a 409', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    const first = request({ idempotency_key: 'k', idempotency_hash: 'h1' });
    const repeat = request({ idempotency_key: 'k', idempotency_hash: 'h1' });
    const other = request({ idempotency_key: 'k', idempotency_hash: 'h2' });
    const neighbour = request({ idempotency_key: 'n', idempotency_hash: 'h' });
    const [a, b, c, d] = await asOneGroup(shared, table, [first, repeat, other, neighbour]);
    expect(value(a)).toMatchObject({ stored: { id: first.id }, created: true });
    expect(value(b)).toMatchObject({ stored: { id: first.id }, created: false });
    expect(reason(c)).toBeInstanceOf(IdempotencyConflictError);
    expect(value(d)).toMatchObject({ stored: { id: neighbour.id }, created: true });
    expect(table.stored.filter((r) => r.idempotency_key === 'k')).toHaveLength(1);
  });

  it('answers a unique key held in the group, or before it, with its holder', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    const earlier = await shared.insert(request({ unique_key: 'held' }));
    const [a, b, c] = await asOneGroup(shared, table, [
      request({ unique_key: 'held' }),
      request({ unique_key: 'new' }),
      request({ unique_key: 'new' }),
    ]);
    expect(value(a)).toMatchObject({ stored: { id: earlier.stored.id }, created: false });
    expect(value(b)?.created).toBe(true);
    expect(value(c)).toMatchObject({ stored: { id: value(b)?.stored.id }, created: false });
  });

  it('fails only the row that makes the shared statement fail: the others are sent again in halves on the pool', async () => {
    const table = new FakeJobsTable();
    const pickup = fakePickup(table, true);
    const shared = service(table, pickup);
    const rows = Array.from({ length: 8 }, (_, i) => request({ payload: i === 5 ? { poison: true } : { i } }));
    const results = await asOneGroup(shared, table, rows);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(reason(results[5])).toMatchObject({ message: 'poisoned row', code: '22023' });
    expect(
      table.stored
        .slice(1)
        .map((r) => r.id)
        .sort(),
    ).toEqual(rows.filter((_, i) => i !== 5).map((r) => r.id));
    // The quiet statement failed; its halves went on the pool, one after the other, down to the bad row.
    expect(table.statements.slice(1).map((s) => [s.on, s.ids.map((id) => rows.findIndex((r) => r.id === id))])).toEqual([
      ['worker', [0, 1, 2, 3, 4, 5, 6, 7]],
      ['pool', [0, 1, 2, 3]],
      ['pool', [4, 5, 6, 7]],
      ['pool', [4, 5]],
      ['pool', [4]],
      ['pool', [5]],
      ['pool', [6, 7]],
    ]);
  });

  it('fails only the bad row of a keyed group, and still answers keys from the rows inserted beside it', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    const first = request({ idempotency_key: 'k', idempotency_hash: 'h' });
    const bad = request({ idempotency_key: 'bad', idempotency_hash: 'h', payload: { poison: true } });
    const repeat = request({ idempotency_key: 'k', idempotency_hash: 'h' });
    const [a, b, c] = await asOneGroup(shared, table, [first, bad, repeat]);
    expect(value(a)).toMatchObject({ stored: { id: first.id }, created: true });
    expect(reason(b)).toMatchObject({ code: '22023' });
    expect(value(c)).toMatchObject({ stored: { id: first.id }, created: false });
  });

  it('does not send the rows again after a connection failure: every submission of that statement gets the 503', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    table.failNext = { kind: 'batch insert', error: new DatabaseUnavailableError('down') };
    const results = await asOneGroup(shared, table, [request(), request(), request()]);
    expect(results.map((r) => reason(r))).toEqual(Array(3).fill(expect.any(DatabaseUnavailableError)));
    expect(table.statements).toHaveLength(2);
    expect(table.stored).toHaveLength(1);
  });

  it('keeps the keyless half of a group when its keyed half loses the connection on a key read', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    await shared.insert(request({ unique_key: 'held' }));
    table.failNext = { kind: 'by unique key', error: new DatabaseUnavailableError('down') };
    const [plain, mine, conflicting] = await asOneGroup(shared, table, [
      request(),
      request({ unique_key: 'mine' }),
      request({ unique_key: 'held' }),
    ]);
    expect(value(plain)?.created).toBe(true);
    // Inserted before the read failed: answered.
    expect(value(mine)?.created).toBe(true);
    expect(reason(conflicting)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it('does not split a statement that fails as a statement (class 42): every row gets its error', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    table.failNext = { kind: 'batch insert', error: Object.assign(new Error('permission denied'), { code: '42501' }) };
    const results = await asOneGroup(shared, table, [request(), request()]);
    expect(results.map((r) => reason(r))).toEqual([expect.objectContaining({ code: '42501' }), expect.objectContaining({ code: '42501' })]);
    expect(table.statements).toHaveLength(2);
  });

  it('sends at most maxBatchSize rows per statement', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table), 3);
    await asOneGroup(
      shared,
      table,
      Array.from({ length: 7 }, () => request()),
    );
    expect(table.statements.map((s) => s.ids.length)).toEqual([1, 3, 3, 1]);
  });

  it('inserts a submission with a large payload in a lane of its own, beside the group in flight, and the others without waiting for it', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    let release!: () => void;
    table.gate = new Promise((resolve) => (release = resolve));
    const lead = shared.insert(request());
    const large = request({ payload: { blob: 'x'.repeat(SOLO_PAYLOAD_CHARS) } });
    const largeAnswer = shared.insert(large);
    // Sent at once beside the lead, not queued behind it.
    expect(shared.waiting).toBe(0);
    expect(table.statements.map((s) => s.ids)).toEqual([[expect.any(String)], [large.id]]);
    const small = request();
    const smallAnswer = shared.insert(small);
    table.gate = null;
    release();
    await expect(Promise.all([lead, largeAnswer, smallAnswer])).resolves.toMatchObject([
      { created: true },
      { stored: { id: large.id }, created: true },
      { stored: { id: small.id }, created: true },
    ]);
  });

  it.each([
    ['', {}],
    ['large ', { blob: 'x'.repeat(SOLO_PAYLOAD_CHARS) }],
  ])('sends a %skeyless submission at once beside a keyed insert in flight, which may wait long for a key’s holder', async (_, payload) => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    let release!: () => void;
    table.gate = new Promise((resolve) => (release = resolve));
    const keyed = request({ payload, idempotency_key: 'held', idempotency_hash: 'h' });
    const keyedAnswer = shared.insert(keyed);
    const plain = request({ payload });
    const plainAnswer = shared.insert(plain);
    expect(shared.waiting).toBe(0);
    expect(table.statements.map((s) => s.ids)).toEqual([[keyed.id], [plain.id]]);
    table.gate = null;
    release();
    await expect(Promise.all([keyedAnswer, plainAnswer])).resolves.toMatchObject([{ created: true }, { created: true }]);
  });

  it('keeps one group of large submissions in flight, as the others: the next ones wait and share a statement', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    let release!: () => void;
    table.gate = new Promise((resolve) => (release = resolve));
    const larges = [1, 2, 3].map(() => request({ payload: { blob: 'x'.repeat(SOLO_PAYLOAD_CHARS) } }));
    const answers = larges.map((r) => shared.insert(r));
    expect(shared.waiting).toBe(2);
    table.gate = null;
    release();
    await Promise.all(answers);
    expect(table.statements.map((s) => s.ids)).toEqual([[larges[0].id], [larges[1].id, larges[2].id]]);
  });

  it('sends a large submission whose insert fails with its own error, and leaves the others alone', async () => {
    const table = new FakeJobsTable();
    const shared = service(table, fakePickup(table));
    const large = request({ payload: { blob: 'x'.repeat(SOLO_PAYLOAD_CHARS), poison: true } });
    const [bad, good] = await Promise.allSettled([shared.insert(large), shared.insert(request())]);
    expect(reason(bad)).toMatchObject({ message: 'poisoned row' });
    expect(value(good)?.created).toBe(true);
  });
});
