import { CLAIMABLE_SQL, SqlTables, Statement } from './statement';

/**
 * Per queue, how long its oldest ready job has been waiting, in seconds by the database's clock: ready means
 * claimable and due (`run_at <= now()`), the rows a claim would take first, so the age is measured from when the
 * job became due, as the queue-latency histogram is (and as `GET /queues` reports it, see queueStats). Paused queues are included: their jobs are ready and waiting,
 * and an age that keeps growing is what a paused queue means. Queues with no ready job have no row. The filter is
 * the claimable index's predicate, so only waiting rows are read.
 */
export function jobOldestReadyByQueue(t: SqlTables): Statement {
  return {
    text: `
SELECT queue, extract(epoch FROM now() - min(run_at))::float8 AS "ageSeconds" FROM ${t.jobs}
WHERE status IN ${CLAIMABLE_SQL} AND run_at <= now() GROUP BY queue`,
    values: [],
  };
}
