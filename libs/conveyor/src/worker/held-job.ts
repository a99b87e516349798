import { Job } from '../jobs/job.entity';
import { RegisteredHandler } from '../handlers/registered-handler.interface';

/** Where a claimed job is inside this process. */
export type HeldState = 'buffered' | 'running' | 'finishing';

/** A job this worker has claimed and must account for until its outcome is written or it is handed back. */
export class HeldJob {
  state: HeldState = 'buffered';
  readonly abort = new AbortController();
  /** The claim was lost; whatever this attempt produces must not be written. */
  lost = false;
  startedAt = 0;

  constructor(
    readonly job: Job,
    readonly handler: RegisteredHandler,
  ) {}

  get token(): string {
    return this.job.leaseToken as string;
  }
}
