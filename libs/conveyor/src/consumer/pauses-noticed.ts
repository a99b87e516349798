/**
 * Pause notices as the claims see them. A claim sent before a queue's pause notice arrived may have read the queue
 * before the pause committed, so the jobs of that queue its answer brings are not started; a claim sent after the
 * notice read the queue after the pause (and, if it brings jobs of it, after a resume). Claims are made one at a time,
 * so a notice is kept only until a claim sent after it is answered.
 */
export class PausesNoticed {
  /** When (performance.now()) the latest pause notice of each queue arrived. */
  private readonly at = new Map<string, number>();

  noticed(queue: string, now = performance.now()): void {
    this.at.set(queue, now);
  }

  /** Whether a claim sent at `claimSentAt` may have read `queue` before its latest pause. */
  mayPredate(queue: string, claimSentAt: number): boolean {
    return (this.at.get(queue) ?? -Infinity) >= claimSentAt;
  }

  /** A claim sent at `claimSentAt` was answered: every later claim is sent after the notices that came before it. */
  claimAnswered(claimSentAt: number): void {
    for (const [queue, at] of this.at) if (at < claimSentAt) this.at.delete(queue);
  }
}
