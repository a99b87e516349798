import { IsEmail, IsInt, IsOptional, IsString, Length, Min } from 'class-validator';
import { Job, JobHandler, JobHandlerHost } from '@conveyor/core';

/** Payload of TEST_MAIL: a class-validator class, so submissions are checked field by field. */
export class TestMailPayload {
  @IsEmail({ require_tld: false })
  to: string;

  @IsString()
  @Length(1, 200)
  subject: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  copies?: number;
}

/** A handler with a typed payload and its own default queue, for the REST tests' validation cases. */
@JobHandler('TEST_MAIL', { queue: 'mail', payload: TestMailPayload, maxAttempts: 4 })
export class TestMailHandler extends JobHandlerHost<TestMailPayload> {
  handle(job: Job<TestMailPayload>): { sentTo: string } {
    return { sentTo: job.payload.to };
  }
}
