import { DataSource } from 'typeorm';
import { IsEmail, IsString } from 'class-validator';
import { Job, JobHandler, JobHandlerHost } from '@conveyor/core';
import { receivedEmailsTable } from './received-emails.table';

export class EmailPayload {
  @IsEmail() to: string;
  @IsString() subject: string;
}

/** Records every job it receives in received_emails, where the packaging test reads it. */
@JobHandler('SEND_EMAIL', { payload: EmailPayload, maxAttempts: 3 })
export class SendEmailHandler extends JobHandlerHost<EmailPayload> {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async handle(job: Job<EmailPayload>): Promise<{ deliveredTo: string }> {
    await this.dataSource.query(`INSERT INTO ${receivedEmailsTable()} (job_id, recipient, subject) VALUES ($1, $2, $3)`, [
      job.id,
      job.payload.to,
      job.payload.subject,
    ]);
    return { deliveredTo: job.payload.to };
  }
}
