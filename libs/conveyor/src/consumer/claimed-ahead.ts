import { Job } from '../job/job';
import { ConcurrencyCaps } from './concurrency-caps';
import { HeldJob } from './held-job';

/**
 * The jobs a worker pool claimed ahead of its free slots (the prefetch), in claim order, waiting for a slot. A job
 * whose queue or type is at its cap waits however many slots free up: such jobs are *cap-blocked*, and take no room
 * in the pool, so that jobs of other queues and types are claimed for the slots they leave idle (the claims leave
 * their queue or type out until they start). How many are cap-blocked is counted by `startWhile`, as of its last run.
 */
export class ClaimedAhead {
  private jobs: HeldJob[] = [];
  private capBlocked = 0;

  constructor(private readonly caps: ConcurrencyCaps) {}

  get size(): number {
    return this.jobs.length;
  }

  /** Jobs that will start as slots free up: all but the cap-blocked ones. */
  get startable(): number {
    return Math.max(0, this.jobs.length - this.capBlocked);
  }

  /** The waiting jobs, for the caps of the next claim. */
  waitingJobs(): Job[] {
    return this.jobs.map((held) => held.job);
  }

  add(held: HeldJob): void {
    this.jobs.push(held);
  }

  /**
   * Takes out, in claim order, each job its caps let start while `slotFree()` says a slot is free, and hands it to
   * `start`. The jobs it passes over are the cap-blocked ones; once the slots are full the rest are not looked at and
   * count as startable, which only shrinks the room until the next slot frees up and this runs again. Every other way
   * a job leaves (`remove`, `takeQueue`) is followed by a run of this, which counts them again.
   */
  startWhile(slotFree: () => boolean, start: (held: HeldJob) => void): void {
    let i = 0;
    while (i < this.jobs.length && slotFree()) {
      const held = this.jobs[i];
      if (!this.caps.mayStart(held.job, held.handler.concurrency)) {
        i++;
        continue;
      }
      this.jobs.splice(i, 1);
      start(held);
    }
    this.capBlocked = i;
  }

  remove(held: HeldJob): void {
    this.jobs = this.jobs.filter((b) => b !== held);
  }

  /** Takes out the jobs of `queue`. */
  takeQueue(queue: string): HeldJob[] {
    const taken = this.jobs.filter((held) => held.job.queue === queue);
    if (taken.length > 0) this.jobs = this.jobs.filter((held) => held.job.queue !== queue);
    return taken;
  }

  /** Takes out every job. */
  takeAll(): HeldJob[] {
    const taken = this.jobs;
    this.jobs = [];
    this.capBlocked = 0;
    return taken;
  }
}
