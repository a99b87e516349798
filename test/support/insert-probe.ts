import { randomInt } from 'node:crypto';
import { Client, Pool } from 'pg';
import { waitFor } from './wait-for';

/** A test's view of and hold on insert statements: see {@link installInsertProbe}. */
export interface InsertProbe {
  /** Payload of a row whose statement waits, once it reaches the database, until the gate opens. */
  readonly gateRow: { gate: true };
  /** Payload of a row PostgreSQL refuses: its statement fails (SQLSTATE 22023, "poisoned row"). */
  readonly poisonRow: { poison: true };
  /** Closes the gate: statements carrying a gate row wait from now on. Resolves once it is closed. */
  close(): Promise<void>;
  /** Resolves once `count` statements carrying a gate row are waiting at the gate (they are in flight). */
  waitingStatement(count?: number): Promise<void>;
  /** Opens the gate: the waiting statement goes on. */
  open(): Promise<void>;
  /** How many transactions inserted the jobs `ids` (each statement on the pool is a transaction of its own). */
  transactionsOf(ids: string[]): Promise<number>;
  /**
   * The statements that inserted any of the jobs `ids`, in the order they ran: how many rows each inserted, and its
   * transaction.
   */
  statementsOf(ids: string[]): Promise<Array<{ rows: number; xid: string }>>;
}

/**
 * Triggers on a test schema's jobs table that let a test see which transaction inserted each job, hold one insert
 * statement in flight, and fail one as PostgreSQL fails a statement on a row it refuses.
 *
 * Every inserted job's id and inserting transaction are logged (a job's `xmin` says the same only until a worker
 * updates it), and so is every insert statement with the ids it inserted. A row whose payload has `gate` waits for
 * an advisory lock that the test holds while the gate is closed (a key of its own, so tests running elsewhere on the
 * same database do not meet it); a row whose payload has `poison` raises an error. Other rows pass untouched.
 */
export async function installInsertProbe(sql: Pool, schema: string): Promise<InsertProbe> {
  const key = randomInt(1, 2 ** 31 - 1);
  await sql.query(`
CREATE FUNCTION ${schema}.test_insert_gate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF jsonb_typeof(NEW.payload) = 'object' AND NEW.payload ? 'gate' THEN PERFORM pg_advisory_xact_lock_shared(${key}); END IF;
  IF jsonb_typeof(NEW.payload) = 'object' AND NEW.payload ? 'poison' THEN
    RAISE EXCEPTION 'poisoned row' USING ERRCODE = '22023';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER test_insert_gate BEFORE INSERT ON ${schema}.conveyor_jobs FOR EACH ROW EXECUTE FUNCTION ${schema}.test_insert_gate();
CREATE TABLE ${schema}.test_inserts (job_id uuid NOT NULL, xid xid8 NOT NULL DEFAULT pg_current_xact_id());
CREATE FUNCTION ${schema}.test_insert_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${schema}.test_inserts (job_id) VALUES (NEW.id);
  RETURN NULL;
END $$;
CREATE TRIGGER test_insert_log AFTER INSERT ON ${schema}.conveyor_jobs FOR EACH ROW EXECUTE FUNCTION ${schema}.test_insert_log();
CREATE TABLE ${schema}.test_insert_statements (
  n serial PRIMARY KEY, job_ids uuid[] NOT NULL, xid xid8 NOT NULL DEFAULT pg_current_xact_id());
CREATE FUNCTION ${schema}.test_insert_statement_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${schema}.test_insert_statements (job_ids) SELECT coalesce(array_agg(id), '{}') FROM inserted;
  RETURN NULL;
END $$;
CREATE TRIGGER test_insert_statement_log AFTER INSERT ON ${schema}.conveyor_jobs REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.test_insert_statement_log()`);
  let holder: Client | null = null;
  return {
    gateRow: { gate: true },
    poisonRow: { poison: true },
    async close() {
      holder = new Client({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL });
      await holder.connect();
      await holder.query('SELECT pg_advisory_lock($1)', [key]);
    },
    async waitingStatement(count = 1) {
      await waitFor(
        async () =>
          (
            await sql.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND objsubid = 1 AND NOT granted`,
              [key],
            )
          ).rows[0].n >= count,
        { message: `${count} statement(s) to wait at the insert gate` },
      );
    },
    async open() {
      const h = holder;
      holder = null;
      if (!h) return;
      try {
        await h.query('SELECT pg_advisory_unlock($1)', [key]);
      } finally {
        await h.end();
      }
    },
    async transactionsOf(ids) {
      const { rows } = await sql.query<{ n: number }>(
        `SELECT count(DISTINCT xid::text)::int AS n FROM ${schema}.test_inserts WHERE job_id = ANY($1::uuid[])`,
        [ids],
      );
      return rows[0].n;
    },
    async statementsOf(ids) {
      const { rows } = await sql.query<{ rows: number; xid: string }>(
        `SELECT cardinality(job_ids) AS rows, xid::text AS xid FROM ${schema}.test_insert_statements WHERE job_ids && $1::uuid[] ORDER BY n`,
        [ids],
      );
      return rows;
    },
  };
}
