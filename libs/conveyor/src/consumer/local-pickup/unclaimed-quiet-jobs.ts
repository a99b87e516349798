/** Jobs of one quiet insert still unclaimed, and how many claims had started before it committed. */
interface Entry {
  ids: Set<string>;
  claimsBefore: number;
}

/**
 * The jobs of this instance's quiet inserts (LocalPickupService) that its poller has not claimed yet.
 *
 * A claim that started after an insert committed sees the insert's jobs; whichever of them it did not take
 * must be announced, or other instances would not hear of them before their fallback poll. A claim that was
 * already under way when the insert committed cannot see them, so its entry waits for the next claim.
 */
export class UnclaimedQuietJobs {
  private entries: Entry[] = [];
  private claimsStarted = 0;
  private waiting = 0;

  /** Jobs awaiting a claim. */
  get count(): number {
    return this.waiting;
  }

  add(ids: readonly string[]): void {
    this.entries.push({ ids: new Set(ids), claimsBefore: this.claimsStarted });
    this.waiting += ids.length;
  }

  /** A claim is about to be sent: its number, for `claimed`. */
  claimStarting(): number {
    return ++this.claimsStarted;
  }

  /** Claim `claimNo` took `jobs`: true when it left jobs it could see (they are dropped here; announce them). */
  claimed(claimNo: number, jobs: readonly { id: string }[]): boolean {
    if (this.entries.length === 0) return false;
    let left = false;
    const kept: Entry[] = [];
    for (const entry of this.entries) {
      for (const job of jobs) if (entry.ids.delete(job.id)) this.waiting--;
      if (entry.ids.size === 0) continue;
      if (entry.claimsBefore < claimNo) {
        left = true;
        this.waiting -= entry.ids.size;
      } else {
        kept.push(entry);
      }
    }
    this.entries = kept;
    return left;
  }

  /** No claim will come for what is waiting (no room, a failed claim, shutdown): true when anything was. */
  clear(): boolean {
    const any = this.entries.length > 0;
    this.entries = [];
    this.waiting = 0;
    return any;
  }
}
