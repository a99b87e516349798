/**
 * The notice that jobs are due, or will be, on the jobs channel: the payload of the insert trigger's NOTIFY
 * (migration 0005, which holds these forms: changing them takes a new migration). Rows due when the insert commits
 * are announced as `ready:<ms>` (their earliest run_at, epoch ms rounded down): a claim sent by anyone who hears it
 * sees them. Scheduled rows are announced by their run_at rounded up: a claim sent once the database's clock has
 * reached it sees them. The first time names the insert, so an instance can pair it with its own
 * (OwnInsertEchoes); the scheduled rows' other due times follow it, comma-separated, ascending, each once, the
 * earliest MAX_ANNOUNCED_DUE_TIMES of them: `ready:<ms>,<ms>,…` or `<ms>,<ms>,…`. An instance of an earlier
 * release cannot read `ready:` or a list, and claims at once.
 *
 * A statement that made jobs ready without inserting them (jobsNotifyReady) sends READY_NOTICE alone: no insert of
 * anyone's is its pair, and a listener claims at once for a payload that is not a due time.
 */
export const READY_NOTICE = 'ready';
export const READY_NOTICE_PREFIX = `${READY_NOTICE}:`;

/**
 * Due times an insert announces after its first, at most; migration 0005 writes the number into the trigger, so
 * another takes a new migration. A NOTIFY's payload holds 8,000 bytes and a due time takes 14: these fit with room,
 * and an instance keeps its earliest 1,000 due times (DueTimes) whatever it hears.
 */
export const MAX_ANNOUNCED_DUE_TIMES = 100;

export interface DueNotice {
  /** Epoch ms (database clock): the insert's earliest run_at. */
  at: number;
  /** The jobs are due already (`ready:`), not at `at`. */
  ready: boolean;
  /** The insert's later due times, epoch ms (database clock), ascending. */
  later: number[];
}

const DUE_NOTICE = new RegExp(`^(${READY_NOTICE_PREFIX})?(-?\\d+)((?:,-?\\d+)*)$`);

/** The notice in a payload, or null when the payload is not one. */
export function parseDueNotice(payload: string | undefined): DueNotice | null {
  const match = payload ? DUE_NOTICE.exec(payload) : null;
  if (!match) return null;
  const later = match[3] ? match[3].slice(1).split(',').map(Number) : [];
  return { at: Number(match[2]), ready: match[1] !== undefined, later };
}
