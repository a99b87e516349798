/** How long half a pair waits for the other: a NOTIFY reaches the listener within milliseconds of its commit. */
const PAIR_WINDOW_MS = 2_000;
/** Unmatched halves kept at most (with no listener, inserts are never paired, and must not pile up). */
const MAX_UNMATCHED = 256;

/** One side of a pair: the backend that committed the insert, and its earliest run_at (epoch ms). */
interface Notice {
  pid: number;
  at: number;
  heardAt: number;
}

/**
 * Pairs an insert this instance committed on its own pool with the NOTIFY that insert also sent, so that the
 * two wake the poller once (LocalPickupService).
 *
 * An instance that submits jobs and runs workers learns of its own insert twice: from the statement's result
 * (which wakes the poller without depending on LISTEN: it also serves LISTEN=false, and connection poolers that
 * cannot carry LISTEN) and from the NOTIFY. Waking for both would send one empty claim
 * per submission. A NOTIFY carries the pid of the backend that committed it, and its payload is the
 * earliest run_at of the rows it announces, so (pid, run_at) names the insert.
 *
 * Whichever half arrives first is kept; the second is the echo and wakes nothing. The pairing only ever drops a
 * wake-up that its partner already gave: a claim sent after either half sees the insert's rows, since both come
 * after its commit. A half that finds no partner within the window is forgotten (the listener was down, or the
 * insert announced nothing to this instance), so a stale half cannot swallow a later insert's notification.
 */
export class OwnInsertEchoes {
  /** Committed inserts whose NOTIFY has not been heard yet. */
  private readonly inserts: Notice[] = [];
  /** Notifications heard before the result of the insert that sent them. */
  private readonly notifications: Notice[] = [];

  /** This instance's insert committed: true unless its NOTIFY already woke the poller. */
  insertCommitted(pid: number, runAt: number, now: number): boolean {
    if (this.take(this.notifications, (n) => n.pid === pid && sameRunAt(runAt, n.at), now)) return false;
    this.keep(this.inserts, { pid, at: runAt, heardAt: now });
    return true;
  }

  /** A NOTIFY from backend `pid` announcing run_at `notifiedAt`: true unless it echoes an insert already woken for. */
  notified(pid: number, notifiedAt: number, now: number): boolean {
    if (this.take(this.inserts, (n) => n.pid === pid && sameRunAt(n.at, notifiedAt), now)) return false;
    this.keep(this.notifications, { pid, at: notifiedAt, heardAt: now });
    return true;
  }

  /** Halves waiting for their partner (for tests and diagnostics). */
  get unmatched(): number {
    return this.inserts.length + this.notifications.length;
  }

  private take(list: Notice[], matches: (n: Notice) => boolean, now: number): boolean {
    forgetOld(list, now);
    const i = list.findIndex(matches);
    if (i < 0) return false;
    list.splice(i, 1);
    return true;
  }

  private keep(list: Notice[], notice: Notice): void {
    forgetOld(list, notice.heardAt);
    if (list.length === MAX_UNMATCHED) list.shift();
    list.push(notice);
  }
}

/** Oldest first: drop the halves whose partner would have come by now. */
function forgetOld(list: Notice[], now: number): void {
  let stale = 0;
  while (stale < list.length && now - list[stale].heardAt > PAIR_WINDOW_MS) stale++;
  if (stale > 0) list.splice(0, stale);
}

/**
 * The insert's run_at as Node parsed it (milliseconds, truncated) against the NOTIFY's (the trigger's, rounded up
 * for a scheduled row and down for one due at once: migration 0004): the same instant reads as equal or one
 * millisecond more.
 */
function sameRunAt(insertedAt: number, notifiedAt: number): boolean {
  const d = notifiedAt - insertedAt;
  return d === 0 || d === 1;
}
