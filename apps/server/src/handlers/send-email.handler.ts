import { Inject, OnModuleDestroy } from '@nestjs/common';
import { Job, JobContext, JobHandler, JobHandlerHost, PermanentJobError } from '@conveyor/core';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTransport, Transporter } from 'nodemailer';
import { AppSettings } from '../config/app-config';
import { APP_SETTINGS } from '../config/app-settings.token';
import { SendEmailPayload } from './send-email.payload';

/** What SEND_EMAIL stores as its result. */
export type SendEmailResult =
  { transport: 'smtp'; messageId: string; accepted: string[]; rejected: string[] } | { transport: 'outbox'; path: string; note: string };

/**
 * Sends an e-mail over SMTP when SMTP_URL is set. Without SMTP it writes the message as an .eml file
 * to the outbox folder and says so in its result, so development needs no mail server.
 * SMTP 5xx answers are permanent (the address or message is refused); 4xx and network errors retry.
 */
@JobHandler('SEND_EMAIL', { queue: 'emails', payload: SendEmailPayload, maxAttempts: 8, timeout: 60_000 })
export class SendEmailHandler extends JobHandlerHost<SendEmailPayload, SendEmailResult> implements OnModuleDestroy {
  private readonly smtp: Transporter | null;
  private readonly composer = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(@Inject(APP_SETTINGS) private readonly settings: AppSettings) {
    super();
    this.smtp = settings.smtpUrl ? createTransport(settings.smtpUrl) : null;
  }

  async handle(job: Job<SendEmailPayload>, context: JobContext): Promise<SendEmailResult> {
    const message = {
      from: this.settings.emailFrom,
      to: job.payload.to,
      subject: job.payload.subject,
      text: job.payload.text,
      html: job.payload.html,
      // A stable Message-ID lets a receiving server drop the duplicate if a retry re-sends.
      messageId: `<${job.id}@conveyor>`,
    };
    if (!this.smtp) return this.writeToOutbox(job.id, message);
    if (context.signal.aborted) throw context.signal.reason;
    try {
      const info = await this.smtp.sendMail(message);
      return {
        transport: 'smtp',
        messageId: info.messageId,
        accepted: info.accepted.map(String),
        rejected: info.rejected.map(String),
      };
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      if (code !== undefined && code >= 500)
        throw new PermanentJobError(`SMTP refused the message: ${(err as Error).message}`, { cause: err });
      throw err;
    }
  }

  /** An SMTP_URL with `?pool=true` keeps connections open; they must not outlive the app. */
  onModuleDestroy(): void {
    this.smtp?.close();
  }

  private async writeToOutbox(jobId: string, message: object): Promise<SendEmailResult> {
    const info = (await this.composer.sendMail(message)) as { message: Buffer };
    const dir = resolve(this.settings.outboxDir);
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${jobId}.eml`);
    await writeFile(path, info.message);
    return { transport: 'outbox', path, note: 'SMTP_URL is not set: the message was written to the outbox folder instead of being sent' };
  }
}
