import { Injectable } from '@nestjs/common';
import { Job, JobContext, JobHandler, JobHandlerHost } from '@conveyor/core';

/** Any realistic-looking payload; what the job does is scripted in {@link DemoGate}, not in the payload. */
export type DemoPayload = Record<string, unknown>;

/**
 * The script of the demo: jobs (by idempotency key) that fail their first attempts with a given error, and a
 * gate that keeps GENERATE_REPORT jobs RUNNING while the pictures are taken.
 */
@Injectable()
export class DemoGate {
  readonly failures = new Map<string, { times: number; error: string }>();
  private open!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.open = resolve));

  release(): void {
    this.open();
  }
}

async function run(job: Job<DemoPayload>, ctx: JobContext, gate: DemoGate, result: Record<string, unknown>): Promise<unknown> {
  if (job.type === 'GENERATE_REPORT') {
    await ctx.progress({ percent: 40, data: { rows: 48_000, of: 120_000 } });
    await gate.opened;
  }
  const failure = job.idempotencyKey ? gate.failures.get(job.idempotencyKey) : undefined;
  if (failure && ctx.attempt <= failure.times) throw new Error(failure.error);
  return result;
}

/**
 * Handlers with realistic names, so the screenshots in the README and docs/api.md look like a real service's. */
@JobHandler('SEND_EMAIL', { queue: 'emails', maxAttempts: 5, backoff: { baseMs: 100, factor: 2, maxMs: 1000, jitter: 0 } })
export class DemoEmailHandler extends JobHandlerHost<DemoPayload> {
  constructor(private readonly gate: DemoGate) {
    super();
  }
  handle(job: Job<DemoPayload>, ctx: JobContext) {
    return run(job, ctx, this.gate, { messageId: `<${job.id.slice(-12)}@mail.example.com>`, accepted: [job.payload.to] });
  }
}

@JobHandler('SEND_WEBHOOK', { queue: 'webhooks', maxAttempts: 3, backoff: { baseMs: 100, factor: 2, maxMs: 1000, jitter: 0 } })
export class DemoWebhookHandler extends JobHandlerHost<DemoPayload> {
  constructor(private readonly gate: DemoGate) {
    super();
  }
  handle(job: Job<DemoPayload>, ctx: JobContext) {
    return run(job, ctx, this.gate, { status: 204, durationMs: 87 });
  }
}

@JobHandler('CHARGE_CARD', { queue: 'billing', maxAttempts: 5, backoff: { baseMs: 150, factor: 2, maxMs: 1000, jitter: 0 } })
export class DemoChargeHandler extends JobHandlerHost<DemoPayload> {
  constructor(private readonly gate: DemoGate) {
    super();
  }
  handle(job: Job<DemoPayload>, ctx: JobContext) {
    return run(job, ctx, this.gate, { chargeId: `ch_${job.id.replace(/-/g, '').slice(-14)}`, amount: job.payload.amount, currency: 'EUR' });
  }
}

@JobHandler('GENERATE_REPORT', { queue: 'reports', maxAttempts: 3 })
export class DemoReportHandler extends JobHandlerHost<DemoPayload> {
  constructor(private readonly gate: DemoGate) {
    super();
  }
  handle(job: Job<DemoPayload>, ctx: JobContext) {
    return run(job, ctx, this.gate, { pages: 12, url: `https://files.example.com/reports/${job.id.slice(-12)}.pdf` });
  }
}

/** Every demo handler, plus the gate they share. */
export const DEMO_PROVIDERS = [DemoGate, DemoEmailHandler, DemoWebhookHandler, DemoChargeHandler, DemoReportHandler];
