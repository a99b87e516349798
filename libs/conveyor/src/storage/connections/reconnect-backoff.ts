/** Wait before the first reconnection attempt after a connection was lost. */
const FIRST_WAIT_MS = 100;
/** Longest wait between two reconnection attempts. */
const MAX_WAIT_MS = 2000;

/**
 * The waits of a dedicated connection (a LISTEN connection) that reconnects after it is lost: 100 ms, doubling up to
 * 2 s. It also tells which loss begins an outage and which connect ends one, so that only those two are logged:
 * while the database is away the failed reconnections come every few seconds, and a line for each would flood the log.
 */
export class ReconnectBackoff {
  private waitMs = FIRST_WAIT_MS;

  /** The connection was lost, or a reconnection failed: how long to wait before the next attempt, and whether this
   * loss began the outage (the first since the last connect). */
  lost(): { waitMs: number; first: boolean } {
    const waitMs = this.waitMs;
    this.waitMs = Math.min(MAX_WAIT_MS, this.waitMs * 2);
    return { waitMs, first: waitMs === FIRST_WAIT_MS };
  }

  /** Connected: true when this ends an outage (losses came before it). */
  connected(): boolean {
    const back = this.waitMs > FIRST_WAIT_MS;
    this.waitMs = FIRST_WAIT_MS;
    return back;
  }
}
