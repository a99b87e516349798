/**
 * The notice that jobs are due, or will be, on the jobs channel: the payload of the insert trigger's NOTIFY
 * (migration 0004, which holds these forms: changing them takes a new migration). Rows due when the insert commits
 * are announced as `ready:<ms>` (their earliest run_at, epoch ms rounded down): a claim sent by anyone who hears it
 * sees them. Scheduled rows are announced as a bare `<ms>`, their earliest run_at rounded up: a claim sent once the
 * database's clock has reached it sees them. The ms name the insert, so an instance can pair it with its own
 * (OwnInsertEchoes). An instance of an earlier release cannot read `ready:`, and claims at once.
 *
 * A statement that made jobs ready without inserting them (jobsNotifyReady) sends READY_NOTICE alone: no insert of
 * anyone's is its pair, and a listener claims at once for a payload that is not a due time.
 */
export const READY_NOTICE = 'ready';
export const READY_NOTICE_PREFIX = `${READY_NOTICE}:`;

export interface DueNotice {
  /** Epoch ms (database clock). */
  at: number;
  /** The jobs are due already (`ready:`), not at `at`. */
  ready: boolean;
}

const DUE_NOTICE = new RegExp(`^(${READY_NOTICE_PREFIX})?(-?\\d+)$`);

/** The notice in a payload, or null when the payload is not one. */
export function parseDueNotice(payload: string | undefined): DueNotice | null {
  const match = payload ? DUE_NOTICE.exec(payload) : null;
  return match ? { at: Number(match[2]), ready: match[1] !== undefined } : null;
}
