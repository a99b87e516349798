import { JobProgress } from '../../job/job-progress';

/** The status of a live event for a job that was deleted (purged by an operator). */
export const DELETED = 'DELETED';

/**
 * One live event: a job's state after a change, as `GET /events` and `GET /jobs/:id/events` send it (the SSE
 * `data` of an `event: job`). It is a state, not a diff, so a subscriber may see the same state twice (a catch-up
 * overlapping the live stream) and keeps whichever has the latest `updatedAt`.
 */
export interface LiveJobEvent {
  id: string;
  /** A job status, or `DELETED`. */
  status: string;
  queue: string;
  type: string;
  /**
   * The job's `updated_at` after the change (ISO, microseconds dropped): the time the write gave the row when its
   * writer announced the item (a claim, an outcome of an attempt that reported no progress), or else the row's when
   * the announcement read it.
   */
  updatedAt: string;
  progress: JobProgress | null;
}

/** An event with its SSE id: the job's `updated_at` in µs since the epoch, a dot, and the job id. */
export interface LiveEvent {
  eventId: string;
  atUs: string;
  job: LiveJobEvent;
}

/** A live item as liveChangesNotify, jobChangedSince and liveItemOf give it: id, status, queue, type, µs, progress. */
export type LiveItem = [string, string, string, string, string, JobProgress | null];

/**
 * The item of a job whose writer knows all of it: the status the write set, the time it gave the row (`updated_at`,
 * µs since the epoch as text) and the progress the row holds after it.
 */
export function liveItemOf(
  job: { id: string; queue: string; type: string },
  status: string,
  atUs: string,
  progress: JobProgress | null,
): LiveItem {
  return [job.id, status, job.queue, job.type, atUs, progress];
}

/** The event of one live item. */
export function liveEventOf(item: LiveItem): LiveEvent {
  const [id, status, queue, type, atUs, progress] = item;
  return {
    eventId: `${atUs}.${id}`,
    atUs,
    job: { id, status, queue, type, updatedAt: new Date(Number(BigInt(atUs) / 1000n)).toISOString(), progress: progress ?? null },
  };
}

/**
 * The µs position an SSE `Last-Event-ID` names, or null when it is not one of ours. Sixteen digits reach the year
 * 2286, further than any id this API sends; nineteen would overflow the catch-up's arithmetic in PostgreSQL.
 */
export function positionOf(lastEventId: string | undefined): string | null {
  const match = /^(\d{1,16})\.[0-9a-f-]{36}$/i.exec(lastEventId?.trim() ?? '');
  return match ? match[1] : null;
}
