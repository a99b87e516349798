import { Job } from '../../job/job';
import { LogFields, LogRecord } from './log-record';

/** What every log line about one job carries, so one job's story can be filtered out of the logs. */
export interface JobLogFields {
  jobId: string;
  type: string;
  /** The attempt the line is about (1 for the first run). */
  attempt: number;
  /** The worker the line is about: the one running the job, or the one that lost it. */
  worker: string;
}

/** The job fields of a log line. */
export function jobLogFields(job: Pick<Job, 'id' | 'type' | 'attempts'>, worker: string): JobLogFields {
  return { jobId: job.id, type: job.type, attempt: job.attempts, worker };
}

/** A log record about one job: `this.logger.warn(jobLog('Lost the claim on a job', job, workerId))`. */
export function jobLog(msg: string, job: Pick<Job, 'id' | 'type' | 'attempts'>, worker: string, extra: LogFields = {}): LogRecord {
  return new LogRecord(msg, { ...jobLogFields(job, worker), ...extra });
}
