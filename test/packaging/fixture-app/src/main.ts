import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { installShutdownSignals, JobsService } from '@conveyor/core';
import { configureHttp } from '@conveyor/core/http';
import { AppModule } from './app.module';
import { receivedEmailsTable } from './received-emails.table';

/**
 * Starts the app on a free port, then enqueues one job inside a transaction of its own, and prints one JSON
 * line `{ port, transactionalJobId }` for the packaging test.
 */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule, { bodyParser: false, logger: ['error', 'warn'] });
  installShutdownSignals(app);
  configureHttp(app, { bodyLimitBytes: 1_048_576 });
  const dataSource = app.get(DataSource);
  await dataSource.query(
    `CREATE TABLE IF NOT EXISTS ${receivedEmailsTable()} (job_id uuid PRIMARY KEY, recipient text NOT NULL, subject text NOT NULL)`,
  );
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };

  const jobs = app.get(JobsService);
  const job = await dataSource.transaction((manager) =>
    jobs.enqueue('SEND_EMAIL', { to: 'grace@example.com', subject: 'In a transaction' }, { manager }),
  );
  console.log(JSON.stringify({ port: address.port, transactionalJobId: job.id }));
}

bootstrap().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
