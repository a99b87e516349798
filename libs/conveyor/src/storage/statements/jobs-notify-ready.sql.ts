import { Statement } from './statement';

/**
 * Wakes listening workers after a statement that made jobs ready without inserting them (retry, rescue). The payload
 * is now() rounded down to the millisecond, as the insert NOTIFY announces jobs due at once (migration 0004): the jobs
 * are due when the statement commits, so no worker arms a timer for them.
 */
export function jobsNotifyReady(channel: string): Statement {
  return { text: `SELECT pg_notify($1, floor(extract(epoch FROM now()) * 1000)::bigint::text)`, values: [channel] };
}
