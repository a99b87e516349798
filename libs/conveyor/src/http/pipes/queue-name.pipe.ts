import { Injectable, PipeTransform } from '@nestjs/common';
import { JobValidationError } from '../../errors/job-request.errors';

/** What a submission accepts as a queue name (SubmitJobEnvelope), so every queue a job can be in can be named. */
const QUEUE_NAME = /^[A-Za-z0-9_.:-]{1,200}$/;

/** A malformed queue name in a path is a 400 naming `queue`, never a database error. */
@Injectable()
export class QueueNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !QUEUE_NAME.test(value)) {
      throw new JobValidationError('Invalid queue', [{ field: 'queue', problems: ['must be 1-200 of letters, digits, _ . : -'] }]);
    }
    return value;
  }
}
