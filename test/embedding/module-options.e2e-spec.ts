import { INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Pool } from 'pg';
import {
  ConveyorConfigError,
  ConveyorModule,
  ConveyorOptionsInput,
  JobHandler,
  JobHandlerHost,
  JobsService,
  JobStatus,
} from '@conveyor/core';
import { CONVEYOR_OPTIONS } from '@conveyor/core/config/conveyor.constants';
import { ConveyorOptions } from '@conveyor/core/config/conveyor-options.interface';
import { FAST_ENGINE } from '../support/test-app';
import { TEST_DATABASE_URL_ENV } from '../support/test-database-env';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

@Injectable()
@JobHandler('OPTIONS_PROBE')
class ProbeHandler extends JobHandlerHost<Record<string, never>> {
  handle(): Promise<{ ok: true }> {
    return Promise.resolve({ ok: true });
  }
}

/** The host's own settings, which a forRootAsync factory reads. */
@Injectable()
class HostSettings {
  readonly concurrency = 3;
}

@Module({ providers: [HostSettings], exports: [HostSettings] })
class HostSettingsModule {}

/**
 * `ConveyorModule.forRootAsync` as a host app writes it: options from a factory that injects the host's settings,
 * jobs stored through a named TypeORM DataSource next to the host's default one, and a factory that returns what
 * is no option (a misspelt key, `dataSourceName`) refused at start-up instead of ignored.
 */
describe('ConveyorModule.forRootAsync with a named DataSource', () => {
  let hostSchema: TestSchema;
  let jobsSchema: TestSchema;
  let sql: Pool;

  beforeAll(async () => {
    [hostSchema, jobsSchema] = await Promise.all([createTestSchema('embed_opts_host'), createTestSchema('embed_opts_jobs')]);
    sql = new Pool({ connectionString: process.env[TEST_DATABASE_URL_ENV], max: 2 });
  });

  afterAll(async () => {
    await sql?.end();
    await Promise.all([hostSchema?.drop(), jobsSchema?.drop()]);
  });

  /**
   * The host's default DataSource on its schema, the named one `jobs` on another, and Conveyor as given. Without
   * `connect` the DataSources open no connection: a start-up that fails inside NestFactory.create leaves no app
   * whose close() would end them.
   */
  function startApp(conveyor: ReturnType<typeof ConveyorModule.forRootAsync>, connect = true): Promise<INestApplication> {
    const url = process.env[TEST_DATABASE_URL_ENV];
    @Module({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url, schema: hostSchema.schema, manualInitialization: !connect }),
        TypeOrmModule.forRoot({ name: 'jobs', type: 'postgres', url, schema: jobsSchema.schema, manualInitialization: !connect }),
        conveyor,
      ],
      providers: [ProbeHandler],
    })
    class HostAppModule {}
    // No logger: the refused start-ups are expected, and their errors are asserted below.
    return NestFactory.create(HostAppModule, { logger: false, abortOnError: false }).then(async (app) => {
      try {
        await app.init();
        return app;
      } catch (err) {
        await app.close().catch(() => undefined);
        throw err;
      }
    });
  }

  const tablesIn = async (schema: string) =>
    (
      await sql.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1`, [schema])
    ).rows.map((r) => r.name);

  it('stores and runs jobs through the DataSource named beside useFactory, with the options the factory returns', async () => {
    const app = await startApp(
      ConveyorModule.forRootAsync({
        dataSourceName: 'jobs',
        imports: [HostSettingsModule],
        inject: [HostSettings],
        useFactory: (settings: HostSettings): ConveyorOptionsInput => ({ ...FAST_ENGINE, concurrency: settings.concurrency }),
      }),
    );
    try {
      const job = await app.get(JobsService).enqueue('OPTIONS_PROBE', {});
      const row = async () =>
        (await sql.query<{ status: string }>(`SELECT status FROM ${jobsSchema.schema}.conveyor_jobs WHERE id = $1`, [job.id])).rows[0];
      await waitFor(async () => (await row())?.status === JobStatus.COMPLETED, { message: 'the job to complete in the jobs schema' });
      expect(await tablesIn(hostSchema.schema)).toEqual([]);
      expect(app.get<ConveyorOptions>(CONVEYOR_OPTIONS).concurrency).toBe(3);
      expect((await app.get(JobsService).get(job.id)).status).toBe(JobStatus.COMPLETED);
    } finally {
      await app.close();
    }
  });

  it('refuses a factory that returns dataSourceName or a misspelt option, naming it', async () => {
    const returning = (options: object) =>
      startApp(ConveyorModule.forRootAsync({ useFactory: () => ({ ...FAST_ENGINE, ...options }) as ConveyorOptionsInput }), false);
    await expect(returning({ dataSourceName: 'jobs' })).rejects.toThrow(
      new ConveyorConfigError(
        'dataSourceName',
        'goes beside useFactory, not in what it returns: forRootAsync({ dataSourceName, useFactory })',
      ),
    );
    await expect(returning({ concurrancy: 3 })).rejects.toThrow(
      new ConveyorConfigError('concurrancy', 'is not an option of ConveyorModule'),
    );
  });
});
