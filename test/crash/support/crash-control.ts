import { Pool } from 'pg';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../../support/recording-handler';
import { createTestApp, TestApp } from '../../support/test-app';
import { createTestSchema, TestSchema } from '../../support/test-database';

/** The engine settings of the crash specs' worker processes: a 2 s lease, and quick heartbeats and polls. */
export const CRASH_ENGINE = { leaseMs: 2000, heartbeatIntervalMs: 500, maintenanceIntervalMs: 250, pollIntervalMs: 100, concurrency: 8 };

/**
 * The side of a crash spec that outlives the crashes: a schema holding the recording handler's invocations table,
 * and an app on it that runs no workers. It enqueues and reads jobs, and leads maintenance every 250 ms, so that the
 * leases of crashed workers are rescued.
 */
export interface CrashControl {
  schema: TestSchema;
  control: TestApp;
  close(): Promise<void>;
}

export async function startCrashControl(name: string): Promise<CrashControl> {
  const schema = await createTestSchema(name);
  const recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
  await recorder.query(createInvocationsTableSql(schema.schema));
  const control = await createTestApp({
    schema: schema.schema,
    providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
    engine: { runWorkers: false, maintenanceIntervalMs: 250 },
    appName: `${name}-control`,
  });
  return {
    schema,
    control,
    close: async () => {
      await control.close();
      await recorder.end();
      await schema.drop();
    },
  };
}
