import { Statement } from './statement';

/** Wakes listening workers after a statement that made jobs ready without inserting them (retry, rescue). */
export function jobsNotifyReady(channel: string): Statement {
  return { text: `SELECT pg_notify($1, (extract(epoch FROM now()) * 1000)::bigint::text)`, values: [channel] };
}
