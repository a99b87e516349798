import { Gauge, Registry } from 'prom-client';
import { JobStatus } from '../../job/job-status';
import { LeaderElection } from '../../maintenance/leader-election.service';
import { METRIC_PREFIX as P } from './metrics.constants';
import { QueueGauges, QueueGaugesReader } from './queue-gauges.reader';
import { QueueLabels } from './queue-labels';

/** The states the depth gauge reports (see `jobCountByQueue`): 0 when a known queue has none. */
const DEPTH_STATUSES = [JobStatus.SCHEDULED, JobStatus.PENDING, JobStatus.RETRYING, JobStatus.RUNNING, JobStatus.DEAD];

/**
 * The database-wide queue gauges, reported by one instance only: the maintenance leader.
 *
 * Every instance sees the same table, so if each reported these counts, `sum()` over pods would count every job
 * once per pod. Only the instance holding an unexpired leadership term exposes them; the others expose no series
 * at all (not zeros, which would hide a real backlog behind `min()` and add nothing to `sum()`). The leader is
 * the natural reporter: there is exactly one at a time (a term ends on the former leader's clock before another
 * can begin, see LeaderElection), every instance can become it, and only it pays for the two grouped statements.
 * When leadership moves, the series move with it — Prometheus sees the old pod's series go stale and the new
 * pod's appear; during the hand-over (at most one lease) there may be a scrape with no series, never one with
 * two. `conveyor_maintenance_leader` says which instance reports, so `sum()`, `max()` and a join on it all work.
 *
 * Queues a gauge has reported keep a 0 series once drained instead of vanishing. Queues are labelled through
 * `queues`, as in the per-job metrics: those past its bound are reported together as `(other)` — their depths
 * added up, their oldest ready job the oldest of all — so the series, and the drained queues kept at 0, stay bounded.
 */
export function registerQueueGauges(registry: Registry, reader: QueueGaugesReader, leader: LeaderElection, queues: QueueLabels): void {
  const registers = [registry];
  const knownQueues = new Set<string>();
  /** This scrape's gauges, or null when this instance does not report them (not the leader, or no database). */
  const read = async (): Promise<QueueGauges | null> => {
    if (!leader.isLeader) return null;
    const gauges = await reader.read();
    if (gauges) for (const d of gauges.depths) knownQueues.add(queues.of(d.queue));
    return gauges;
  };

  new Gauge({
    name: `${P}maintenance_leader`,
    help: '1 on the instance that leads maintenance and reports the queue gauges, 0 on the others.',
    registers,
    collect() {
      this.set(leader.isLeader ? 1 : 0);
    },
  });

  new Gauge({
    name: `${P}queue_depth`,
    help: 'Jobs per queue and status, read from the database when scraped (COMPLETED and CANCELLED are not counted). Reported by the maintenance leader only.',
    labelNames: ['queue', 'status'],
    registers,
    async collect() {
      const gauges = await read();
      this.reset();
      if (gauges === null) return; // no series rather than stale or duplicated ones
      for (const queue of knownQueues) for (const status of DEPTH_STATUSES) this.set({ queue, status }, 0);
      for (const d of gauges.depths) this.inc({ queue: queues.of(d.queue), status: d.status }, d.count);
    },
  });

  new Gauge({
    name: `${P}queue_oldest_ready_age_seconds`,
    help: 'Per queue, seconds since its oldest ready (claimable and due) job became due, by the database clock; 0 when none is waiting. Reported by the maintenance leader only.',
    labelNames: ['queue'],
    registers,
    async collect() {
      const gauges = await read();
      this.reset();
      if (gauges === null) return;
      for (const queue of knownQueues) this.set({ queue }, 0);
      const oldest = new Map<string, number>();
      for (const o of gauges.oldestReady) {
        const queue = queues.of(o.queue);
        oldest.set(queue, Math.max(oldest.get(queue) ?? 0, o.ageSeconds));
      }
      for (const [queue, ageSeconds] of oldest) this.set({ queue }, ageSeconds);
    },
  });
}
