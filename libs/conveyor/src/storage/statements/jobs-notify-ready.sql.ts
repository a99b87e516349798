import { READY_NOTICE } from './due-notice.codec';
import { Statement } from './statement';

/**
 * Wakes listening workers after a statement that made jobs ready without inserting them (retry, rescue): READY_NOTICE
 * (due-notice.codec.ts), which no instance takes for the echo of an insert of its own, so every one claims at once.
 */
export function jobsNotifyReady(channel: string): Statement {
  return { text: `SELECT pg_notify($1, $2)`, values: [channel, READY_NOTICE] };
}
