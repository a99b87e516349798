/**
 * The READMEs' main examples, as a user writes them against the packages' entry points: the handler and the
 * module wiring of README.md, enqueueing and the testing helpers of libs/conveyor/README.md, submitting, waiting
 * and working jobs of libs/client/README.md. A renamed export, option or parameter fails `npm run typecheck`
 * here; change the README with this file. Nothing here runs.
 */
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IsEmail, IsString } from 'class-validator';
import { DataSource } from 'typeorm';
import {
  ConveyorModule,
  installShutdownSignals,
  Job,
  JobContext,
  JobHandler,
  JobHandlerHost,
  JobsService,
  PermanentJobError,
  RetryLaterError,
} from '@conveyor/core';
import { configureHttp, ConveyorHttpModule } from '@conveyor/core/http';
import { drainQueue, runJob } from '@conveyor/core/testing';
import { ConveyorClient, RetryLaterError as WorkerRetryLaterError, runWorker } from '@conveyor/client';

/** What the examples take as given: the user's own services and helpers. */
interface BillingClient {
  send(
    payload: InvoicePayload,
    options: { signal: AbortSignal },
  ): Promise<{ busyUntil?: Date; rejected?: boolean; reason: string; at: Date }>;
}
declare const failingBilling: BillingClient;
declare function busy(): Promise<boolean>;
declare function makeThumbnail(payload: unknown, signal: AbortSignal): Promise<{ url: string }>;

// README.md, "Writing a handler".
export class InvoicePayload {
  @IsString() invoiceId: string;
  @IsEmail() to: string;
}

@JobHandler('SEND_INVOICE', {
  queue: 'billing',
  payload: InvoicePayload,
  maxAttempts: 8,
  backoff: { baseMs: 2000, factor: 2, maxMs: 600_000 },
  timeout: 30_000,
  concurrency: 4,
})
export class SendInvoiceHandler extends JobHandlerHost<InvoicePayload> {
  constructor(private readonly billing: BillingClient) {
    super();
  }

  async handle(job: Job<InvoicePayload>, ctx: JobContext) {
    const answer = await this.billing.send(job.payload, { signal: ctx.signal });
    if (answer.busyUntil) throw new RetryLaterError(answer.busyUntil);
    if (answer.rejected) throw new PermanentJobError(answer.reason);
    return { sentAt: answer.at };
  }
}

// README.md, "Enqueueing from code".
@Module({
  imports: [
    TypeOrmModule.forRoot({ type: 'postgres', url: process.env.DATABASE_URL, autoLoadEntities: true }),
    ConveyorModule.forRoot({ concurrency: 20 }),
    ConveyorHttpModule.forRoot({ path: 'jobs-api' }),
  ],
  providers: [SendInvoiceHandler],
})
export class AppModule {}

export async function enqueueing(jobs: JobsService, dataSource: DataSource, order: { invoiceId: string; email: string }): Promise<void> {
  const invoiceId = order.invoiceId;
  await jobs.enqueue('SEND_INVOICE', { invoiceId, to: order.email }, { delayMs: 60_000, idempotencyKey: `invoice-${invoiceId}` });
  await dataSource.transaction(async (manager) => {
    await manager.save(order);
    await jobs.enqueue('SEND_INVOICE', { invoiceId: order.invoiceId, to: order.email }, { manager });
  });
}

// libs/conveyor/README.md, "Shutdown" and "The REST API".
export async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  installShutdownSignals(app, { drainMs: 5_000 });
  configureHttp(app, { bodyLimitBytes: 1_048_576 });
  await app.listen(3000);
}

// libs/conveyor/README.md, "Testing your handlers".
export async function testingHandlers(jobs: JobsService): Promise<void> {
  const run = await runJob(
    new SendInvoiceHandler(failingBilling),
    { invoiceId: 'inv-42', to: 'ada@example.com' },
    { attempt: 5, maxAttempts: 5 },
  );
  expect(run.kind).toBe('dead');
  const app = await NestFactory.create(AppModule);
  await app.init();
  await jobs.enqueue('SEND_INVOICE', { invoiceId: 'inv-42', to: 'ada@example.com' });
  const { counts } = await drainQueue(app, { timeoutMs: 10_000 });
  expect(counts.completed).toBe(1);
}

// libs/client/README.md, "Submit and wait" and "Work jobs over HTTP".
export async function client(): Promise<void> {
  const conveyor = new ConveyorClient({ baseUrl: 'http://conveyor:3000', apiKey: process.env.CONVEYOR_API_KEY });
  const job = await conveyor.submit({ type: 'SEND_EMAIL', payload: { to: 'ada@example.com' } }, { idempotencyKey: 'welcome-42' });
  const done = await conveyor.waitFor(job.id, { timeoutMs: 60_000 });
  console.log(done.status, done.result);

  const worker = runWorker(
    'images',
    async (job, ctx) => {
      if (await busy()) throw new WorkerRetryLaterError(60_000);
      return makeThumbnail(job.payload, ctx.signal);
    },
    { baseUrl: 'http://conveyor:3000', apiKey: process.env.CONVEYOR_WORKER_KEY, concurrency: 4 },
  );
  process.on('SIGTERM', () => void worker.stop());
}
