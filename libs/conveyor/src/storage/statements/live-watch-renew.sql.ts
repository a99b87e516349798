import { epochMicrosSql, SqlTables, Statement } from './statement';
import { watchNoticePayload } from './watch-notice.codec';

/**
 * Holds (or extends) this instance's live-watch lease until `leaseMs` from now, by the database's clock, drops
 * leases that ran out long ago (instances that stopped without releasing theirs), and tells listening instances
 * with a watch notice on `channel`. Answers the database's `now()` in microseconds since the epoch, the unit of
 * live event ids.
 */
export function liveWatchRenew(t: SqlTables, holder: string, leaseMs: number, channel: string): Statement {
  return {
    text: `
WITH gone AS (DELETE FROM ${t.liveWatch} WHERE expires_at < now() - interval '1 minute'),
held AS (
  INSERT INTO ${t.liveWatch} (holder, expires_at) VALUES ($1, now() + $2 * interval '1 millisecond')
  ON CONFLICT (holder) DO UPDATE SET expires_at = EXCLUDED.expires_at
  RETURNING ${epochMicrosSql('now()')} AS now_us
)
SELECT held.now_us FROM held, LATERAL pg_notify($3::text, $4::text) AS sent`,
    values: [holder, leaseMs, channel, watchNoticePayload(leaseMs)],
  };
}

/** Gives up this instance's live-watch lease (its last subscriber left, or it is shutting down). */
export function liveWatchRelease(t: SqlTables, holder: string): Statement {
  return { text: `DELETE FROM ${t.liveWatch} WHERE holder = $1`, values: [holder] };
}

/** Whether any instance's live-watch lease is current: writers announce their changes only then. */
export function liveWatchCheck(t: SqlTables): Statement {
  return {
    name: `live_watch_check_${t.key}`,
    text: `SELECT EXISTS (SELECT 1 FROM ${t.liveWatch} WHERE expires_at > now()) AS watched`,
    values: [],
  };
}
