import { Injectable, PipeTransform } from '@nestjs/common';
import { isWellFormedName, NAME_RULE } from '../../config/name-rule';
import { JobValidationError } from '../../errors/job-request.errors';

/** A malformed queue name in a path is a 400 naming `queue`, never a database error. */
@Injectable()
export class QueueNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isWellFormedName(value)) {
      throw new JobValidationError('Invalid queue', [{ field: 'queue', problems: [NAME_RULE] }]);
    }
    return value;
  }
}
