import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CONVEYOR_OPTIONS } from '../../config/conveyor.constants';
import { ConveyorOptions } from '../../config/conveyor-options.interface';
import { ConveyorEvents, JobOutcome } from '../events/conveyor-events.service';
import { WorkerPool } from '../../consumer/worker-pool.service';
import { CONVEYOR_METRICS_REGISTRY, METRIC_PREFIX as P } from './metrics.constants';
import { LeaderElection } from '../../maintenance/leader-election.service';
import { registerQueueGauges } from './queue-gauges';
import { QueueGaugesReader } from './queue-gauges.reader';
import { QueueLabels } from './queue-labels';
import { SeriesCounter } from './series-counter';
import { SeriesHistogram } from './series-histogram';

type JobLabel = 'queue' | 'type';

/** Handler run times: from a few milliseconds to the 5-minute default timeout and beyond. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Due-to-started waits: milliseconds when workers keep up, up to an hour when a backlog builds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
/** Jobs per claim; 0 is an empty poll. */
const BATCH_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/**
 * The engine's Prometheus metrics. Everything about jobs is counted from the engine's event bus, in
 * process, so the hot path never waits on a metrics query; only the database-wide queue gauges ask the
 * database, on the maintenance leader only and once per scrape at most (registerQueueGauges), and the pool
 * gauges read the pool when scraped.
 *
 * Counters and pool gauges are per process, so `sum()` over instances adds them up: `failed` counts
 * attempts that failed and will be retried, `dead` jobs that gave up. `completed`, `failed`, `snoozed`, `dead`, `cancelled` (by a handler) and `handed_back`
 * count the outcomes this worker wrote; `cancelled` also counts cancellations through this instance's
 * API. Lease rescues are counted by whichever instance leads maintenance, and so are the jobs a rescue makes DEAD
 * (their last attempt lost its lease), in `dead`.
 */
@Injectable()
export class ConveyorMetrics implements OnModuleDestroy {
  private readonly submitted: SeriesCounter<JobLabel>;
  private readonly outcomes: Record<JobOutcome, SeriesCounter<JobLabel>>;
  private readonly duration: SeriesHistogram<JobLabel | 'outcome'>;
  private readonly latency: SeriesHistogram<JobLabel>;
  private readonly claimReturned: Histogram;
  private readonly claimRequested: Histogram;
  private readonly rescues: Counter;
  private readonly staleWrites: Counter;
  private readonly unsubscribe: Array<() => void>;

  constructor(
    @Inject(CONVEYOR_METRICS_REGISTRY) readonly registry: Registry,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    events: ConveyorEvents,
    pool: WorkerPool,
    queueGauges: QueueGaugesReader,
    leader: LeaderElection,
  ) {
    const registers = [registry];
    const jobCounter = (name: string, help: string) =>
      new SeriesCounter<JobLabel>({ name: P + name, help, labelNames: ['queue', 'type'], registers });
    this.submitted = jobCounter('jobs_submitted_total', 'Jobs submitted through this instance.');
    this.outcomes = {
      completed: jobCounter('jobs_completed_total', 'Jobs completed by this worker.'),
      failed: jobCounter('jobs_failed_total', 'Attempts that failed and will be retried.'),
      dead: jobCounter('jobs_dead_total', 'Jobs that gave up: attempts exhausted, a permanent error, or too many snoozes.'),
      cancelled: jobCounter('jobs_cancelled_total', "Jobs cancelled by their handler or through this instance's API."),
      snoozed: jobCounter('jobs_snoozed_total', 'Attempts whose handler asked to run later (not counted as attempts).'),
      handed_back: jobCounter(
        'jobs_handed_back_total',
        'Claimed jobs handed back to the queue unrun or unfinished: at shutdown, by an HTTP worker, or past a full claim answer.',
      ),
    };
    this.duration = new SeriesHistogram<JobLabel | 'outcome'>({
      name: `${P}job_duration_seconds`,
      help: 'Handler run time per attempt, by outcome (hand-backs are not included).',
      labelNames: ['queue', 'type', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.latency = new SeriesHistogram<JobLabel>({
      name: `${P}job_queue_latency_seconds`,
      help: 'Time from a job becoming due (its run_at) to its handler starting.',
      labelNames: ['queue', 'type'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.claimReturned = new Histogram({
      name: `${P}claim_batch_size`,
      help: 'Jobs returned per claim statement.',
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.claimRequested = new Histogram({
      name: `${P}claim_batch_requested`,
      help: 'Jobs asked for per claim statement (free room in the pool).',
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.rescues = new Counter({
      name: `${P}lease_rescues_total`,
      help: 'Jobs whose lease expired, returned to the queue by the sweeper on this instance.',
      registers,
    });
    this.staleWrites = new Counter({
      name: `${P}stale_writes_total`,
      help: 'Outcomes and heartbeats refused because the claim had been lost.',
      registers,
    });

    const poolGauge = (name: string, help: string, read: () => number) =>
      new Gauge({ name: P + name, help, registers, collect: collectWith(read) });
    const capacity = () => (this.options.runWorkers ? pool.stats().concurrency : 0);
    poolGauge('pool_slots_in_use', 'Handlers running in this process.', () => pool.stats().running);
    poolGauge('pool_slots_capacity', 'Handlers this process may run at once (0 when it runs no workers).', capacity);
    poolGauge('pool_buffered_jobs', 'Claimed jobs waiting for a free slot.', () => pool.stats().buffered);
    poolGauge('pool_finishing_jobs', 'Finished jobs whose outcome is not written yet.', () => pool.stats().finishing);

    // One bound for every metric labelled by queue, so a queue is named (or `(other)`) alike in all of them.
    const queues = new QueueLabels(options.metricsMaxQueues);
    registerQueueGauges(registry, queueGauges, leader, queues);

    // Every per-job count and observation goes to a series that counts in plain fields (SeriesCounter,
    // SeriesHistogram): nothing is hashed or allocated per job, and the queue label is bounded (QueueLabels).
    this.unsubscribe = [
      events.on('submitted', (jobs) => {
        for (const job of jobs) this.submitted.series(queues.of(job.queue), job.type).inc();
      }),
      events.on('claimed', (jobs, requested) => {
        this.claimReturned.observe(jobs.length);
        this.claimRequested.observe(requested);
      }),
      events.on('started', (job, readyAt) =>
        this.latency.series(queues.of(job.queue), job.type).observe(Math.max(0, Date.now() - readyAt.getTime()) / 1000),
      ),
      events.on('finished', (job, _status, durationMs, outcome) => {
        const queue = queues.of(job.queue);
        this.outcomes[outcome].series(queue, job.type).inc();
        if (outcome !== 'handed_back') this.duration.series(queue, job.type, outcome).observe(durationMs / 1000);
      }),
      events.on('cancelled', (job) => this.outcomes.cancelled.series(queues.of(job.queue), job.type).inc()),
      events.on('stale', () => this.staleWrites.inc()),
      events.on('rescued', (count, dead) => {
        this.rescues.inc(count);
        // A job whose last attempt lost its lease is DEAD with no worker to report it: the sweeper's instance
        // counts it, so `sum(conveyor_jobs_dead_total)` over instances is every job that went DEAD.
        for (const job of dead) this.outcomes.dead.series(queues.of(job.queue), job.type).inc();
      }),
    ];
  }

  /** Content type of `text()`: the Prometheus text format. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in the Prometheus text format (on the leader, reads the queue gauges from the database first). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  onModuleDestroy(): void {
    for (const off of this.unsubscribe) off();
  }
}

/** A gauge `collect` that sets the gauge to `read()` at scrape time. */
function collectWith(read: () => number): (this: Gauge) => void {
  return function (this: Gauge) {
    this.set(read());
  };
}
