/**
 * A timer armed for the earliest moment (performance.now() time) at which a held lease may lapse by this process's
 * clock. When it fires, `due` drops what lapsed and answers the next earliest moment (Infinity when nothing is held),
 * for which it is armed again.
 *
 * Arming for a later moment than the one armed changes nothing: a heartbeat that extends the leases leaves the timer
 * where it was, and when it fires early it finds nothing lapsed and moves on to the new earliest moment. So the timer
 * costs one wake-up per heartbeat interval while jobs are held, and nothing per claim or per heartbeat.
 */
export class LeaseLapseCheck {
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;

  constructor(private readonly due: () => number) {}

  /** Makes sure the check runs by `at`. */
  arm(at: number): void {
    if (at === Infinity || (this.timer && this.armedFor <= at)) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - performance.now()));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Infinity;
  }

  private fire(): void {
    this.timer = null;
    this.armedFor = Infinity;
    this.arm(this.due());
  }
}
