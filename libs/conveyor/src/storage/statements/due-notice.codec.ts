/**
 * The notice that jobs are due, or will be: the payload of the insert trigger's NOTIFY (migration 0004) and of
 * jobsNotifyReady, on the jobs channel. Jobs due when the notifying statement commits are announced as
 * `ready:<ms>` (their earliest run_at, epoch ms rounded down): a claim sent by anyone who hears it sees them. Scheduled
 * ones are announced as a bare `<ms>`, their earliest run_at rounded up: a claim sent once the database's clock has
 * reached it sees them. Either way the ms name the insert, so an instance can pair it with its own (OwnInsertEchoes).
 * An instance of an earlier release reads `ready:` as a notice it cannot read, and claims at once.
 */
export const READY_NOTICE_PREFIX = 'ready:';

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
