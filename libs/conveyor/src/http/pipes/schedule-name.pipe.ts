import { Injectable, PipeTransform } from '@nestjs/common';
import { isWellFormedName, NAME_RULE } from '../../config/name-rule';
import { JobValidationError } from '../../errors/job-request.errors';

/** A malformed schedule name in a path is a 400 naming `name`; a well-formed unknown one is the service's 404. */
@Injectable()
export class ScheduleNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isWellFormedName(value)) {
      throw new JobValidationError('Invalid schedule name', [{ field: 'name', problems: [NAME_RULE] }]);
    }
    return value;
  }
}
