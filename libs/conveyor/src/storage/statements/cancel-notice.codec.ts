/**
 * The notice that tells the instance running a job that the job was cancelled. It travels on the jobs channel, whose
 * due notices start with a digit or `ready` (due-notice.codec.ts), so it is told apart by its first
 * character: a JSON object `{"cancel": id, "token": lease token, "owner": locked_by}`. Every listening instance hears
 * it; only the owner, holding the job under that token, acts (an instance of an earlier release, which wakes its
 * poller for a notice it cannot read, does no harm).
 */
export interface CancelNotice {
  /** The cancelled job. */
  jobId: string;
  /** The lease token it was RUNNING under: a later claim of the same job (retried meanwhile) is not affected. */
  token: string;
  /** The worker id that held it (`locked_by`). */
  owner: string;
}

/** SQL that sends the notice for a row aliased `alias` with `previous_*` columns, on the channel bound to `channelParam`. */
export function cancelNoticeSql(channelParam: string, alias: string): string {
  return `pg_notify(${channelParam}::text, json_build_object('cancel', ${alias}.id, 'token', ${alias}.previous_token, 'owner', ${alias}.previous_owner)::text)`;
}

/** The notice in a payload, or null when the payload is something else (a due time). */
export function parseCancelNotice(payload: string | undefined): CancelNotice | null {
  if (!payload || payload[0] !== '{') return null;
  try {
    const value = JSON.parse(payload) as { cancel?: unknown; token?: unknown; owner?: unknown };
    if (typeof value.cancel !== 'string' || typeof value.token !== 'string' || typeof value.owner !== 'string') return null;
    return { jobId: value.cancel, token: value.token, owner: value.owner };
  } catch {
    return null;
  }
}
