import { HeldJob, HeldLease } from './held-job';

/**
 * The jobs a worker pool holds, one per job id, each under the lease token of the claim that took it. A finding about
 * a claim (a heartbeat's extension or loss, an operator's cancel) applies only while the job is held under that
 * claim's token: after a retry the same job may be held again under a later attempt's.
 */
export class HeldJobs {
  private readonly byId = new Map<string, HeldJob>();

  get size(): number {
    return this.byId.size;
  }

  add(held: HeldJob): void {
    this.byId.set(held.job.id, held);
  }

  /** The job held under this id, whatever its token. */
  get(jobId: string): HeldJob | undefined {
    return this.byId.get(jobId);
  }

  /** The held job of this claim, if it is held under the claim's token still. */
  holding(lease: HeldLease): HeldJob | undefined {
    const held = this.byId.get(lease.id);
    return held?.token === lease.token ? held : undefined;
  }

  /** Lets go of `held`, unless its job is held again meanwhile by another attempt. */
  release(held: HeldJob): void {
    if (this.byId.get(held.job.id) === held) this.byId.delete(held.job.id);
  }

  /** Lease id and token of every held job, whatever its state. */
  leases(): HeldLease[] {
    return [...this.byId.values()].map((h) => ({ id: h.job.id, token: h.token }));
  }

  /** The running attempts. */
  running(): HeldJob[] {
    return [...this.byId.values()].filter((h) => h.state === 'running');
  }

  /**
   * Leases that may have lapsed by `now` (performance.now()) on jobs whose outcome is not queued yet and which are not
   * already given up.
   */
  lapsedBy(now: number): HeldLease[] {
    return [...this.byId.values()].filter((h) => awaitsLease(h) && h.leaseValidUntil <= now).map((h) => ({ id: h.job.id, token: h.token }));
  }

  /** The earliest moment at which one of those leases may lapse (Infinity when there is none). */
  nextLapse(): number {
    let earliest = Infinity;
    for (const held of this.byId.values()) {
      if (awaitsLease(held) && held.leaseValidUntil < earliest) earliest = held.leaseValidUntil;
    }
    return earliest;
  }
}

/** A job whose attempt still depends on its lease: buffered or running, and not given up. */
function awaitsLease(held: HeldJob): boolean {
  return held.state !== 'finishing' && !held.lost;
}
