import { Injectable, PipeTransform } from '@nestjs/common';
import { JobValidationError } from '../../errors/job-request.errors';

/** What a schedule's name may be (config/validate-cron-schedule.ts). */
const SCHEDULE_NAME = /^[A-Za-z0-9_.:-]{1,200}$/;

/** A malformed schedule name in a path is a 400 naming `name`; a well-formed unknown one is the service's 404. */
@Injectable()
export class ScheduleNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !SCHEDULE_NAME.test(value)) {
      throw new JobValidationError('Invalid schedule name', [{ field: 'name', problems: ['must be 1-200 of letters, digits, _ . : -'] }]);
    }
    return value;
  }
}
