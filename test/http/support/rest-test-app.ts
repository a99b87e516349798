import { Pool } from 'pg';
import request from 'supertest';
import { JobStatus } from '@conveyor/core';
import { createInvocationsTableSql, invocationsTable, RECORDER_POOL, RecordingHandler } from '../../support/recording-handler';
import { createTestApp, TestApp, TestAppOptions } from '../../support/test-app';
import { createTestSchema, TestSchema } from '../../support/test-database';
import { TestMailHandler } from './test-mail.handler';

/** A stored job row, as the assertions read it (snake_case, straight from the table). */
export type JobRecord = Record<string, unknown> & { id: string; status: JobStatus; attempts: number; queue: string; type: string };

/** The REST API on a schema of its own, with handlers for TEST_RECORD and TEST_MAIL and helpers to look at the table. */
export interface RestTestApp extends TestApp {
  schema: TestSchema;
  /** A supertest client for the app's (listening) HTTP server. */
  api(): ReturnType<typeof request>;
  /** The stored row of a job, or undefined. */
  row(id: string): Promise<JobRecord | undefined>;
  /** Stored rows matching an SQL condition (bind parameters `$1`...), oldest first. */
  rows(where?: string, values?: unknown[]): Promise<JobRecord[]>;
  /** How many times the recording handler ran a job. */
  invocations(id: string): Promise<number>;
  /** A job's stored status, or undefined when there is no such row. */
  statusOf(id: string): Promise<JobStatus | undefined>;
}

/**
 * Starts the real app with the REST API mounted and listening on a loopback port (so supertest never
 * starts or stops the server itself, and concurrent requests share one address). `options.providers`
 * come on top of the two test handlers.
 */
export async function createRestTestApp(label: string, options: Omit<TestAppOptions, 'schema' | 'listen'> = {}): Promise<RestTestApp> {
  const schema = await createTestSchema(label);
  const recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
  let t: TestApp;
  try {
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      ...options,
      schema: schema.schema,
      listen: true,
      providers: [
        { provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } },
        RecordingHandler,
        TestMailHandler,
        ...(options.providers ?? []),
      ],
    });
  } catch (err) {
    await recorder.end();
    await schema.drop();
    throw err;
  }
  const rows = async (where = 'true', values: unknown[] = []) =>
    (await t.sql.query<JobRecord>(`SELECT * FROM ${t.jobsTable} WHERE ${where} ORDER BY seq`, values)).rows;
  let closed: Promise<void> | undefined;
  return {
    ...t,
    schema,
    api: () => request(t.app.getHttpServer()),
    rows,
    row: async (id) => (await rows('id = $1', [id]))[0],
    statusOf: async (id) => (await rows('id = $1', [id]))[0]?.status,
    invocations: async (id) =>
      (await t.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${invocationsTable(schema.schema)} WHERE job_id = $1`, [id]))
        .rows[0].n,
    close: () =>
      (closed ??= t
        .close()
        .then(() => recorder.end())
        .then(() => schema.drop())),
  };
}
