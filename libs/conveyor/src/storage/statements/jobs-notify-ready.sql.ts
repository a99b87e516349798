import { READY_NOTICE_PREFIX } from './due-notice.codec';
import { Statement } from './statement';

/**
 * Wakes listening workers after a statement that made jobs ready without inserting them (retry, rescue): a ready
 * notice (due-notice.codec.ts), so they claim at once.
 */
export function jobsNotifyReady(channel: string): Statement {
  return {
    text: `SELECT pg_notify($1, '${READY_NOTICE_PREFIX}' || floor(extract(epoch FROM now()) * 1000)::bigint::text)`,
    values: [channel],
  };
}
