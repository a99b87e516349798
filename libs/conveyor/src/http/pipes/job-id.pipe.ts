import { Injectable, PipeTransform } from '@nestjs/common';
import { JobValidationError } from '../../errors/job-request.errors';
import { isJobId } from '../../job/job-id';

/** A malformed job id is a 400 naming `id`, never a database error. */
@Injectable()
export class JobIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !isJobId(value)) {
      throw new JobValidationError('Invalid job id', [{ field: 'id', problems: ['must be a UUID'] }]);
    }
    return value.toLowerCase();
  }
}
