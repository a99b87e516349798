import { JobRequestError } from './job-request.errors';

/** No schedule of this instance has the name asked for: a 404 over HTTP. */
export class ScheduleNotFoundError extends JobRequestError {
  readonly status = 404;
  constructor(readonly scheduleName: string) {
    super(`No schedule named "${scheduleName}".`);
    this.name = 'ScheduleNotFoundError';
  }
}
