import { CaseName, CaseSizes, ConveyorVariant } from '../shared/bench-case';

/** What a ratio row divides by: a variant's value of a case measured in the same repetition. */
export interface Baseline {
  /** `floor`: the floor's value; `same`: the row's own variant (Conveyor against itself, e.g. tuned or an empty table). */
  variant: 'floor' | 'same';
  /** The baseline's case; the row's own case when absent. */
  case?: CaseName;
  /** How the tables name it. */
  label: string;
}

/** A metric reported as a ratio of a variant's value to a baseline measured in the same repetition. */
export interface RatioRowDef {
  case: CaseName;
  metric: string;
  /** `{jobs}`, `{largeJobs}`, `{pendingJobs}` and `{history}` are replaced by the run's sizes. */
  label: string;
  unit: string;
  /** `lower`: a ratio below 1 is better (latencies). */
  direction: 'higher' | 'lower';
  baseline: Baseline;
  /** Goal per claim strategy; a variant without one (the pipelined floor, say) is shown for information. */
  targets: Partial<Record<ConveyorVariant, number>>;
}

/** A metric judged on its own value, over one or more cases. */
export interface AbsoluteRowDef {
  /** The value is taken over every run of these cases (e.g. duplicates over all drains). */
  cases: CaseName[];
  metric: string;
  label: string;
  unit: string;
  /** How repetitions (and cases) are combined: the median, or the worst (for correctness counts and peaks). */
  aggregate: 'median' | 'max';
  /** Upper bound for Conveyor variants; `strict` means the value must stay below it. */
  max?: number;
  strict?: boolean;
}

const FLOOR: Baseline = { variant: 'floor', label: 'floor' };
const BOTH = (target: number): Partial<Record<ConveyorVariant, number>> => ({ 'skip-locked': target, optimistic: target });

/** A drain against the floor: ≥ 0.9× for both claim strategies (issue 26). */
function drainRow(c: CaseName, label: string): RatioRowDef {
  return { case: c, metric: 'jobsPerSec', label, unit: 'jobs/s', direction: 'higher', baseline: FLOOR, targets: BOTH(0.9) };
}

/** A pickup latency percentile against the floor: ≤ 1.0× (issue 26). */
function latencyRow(c: CaseName, metric: 'p50Ms' | 'p99Ms', label: string): RatioRowDef {
  return { case: c, metric, label, unit: 'ms', direction: 'lower', baseline: FLOOR, targets: BOTH(1.0) };
}

/** The goals of issue 26, as ratios (medians over the repetitions of per-repetition ratios). */
export const RATIO_ROWS: RatioRowDef[] = [
  drainRow('drain-10', 'Drain {jobs}, 10 handlers'),
  drainRow('drain-50', 'Drain {jobs}, 50 handlers'),
  drainRow('drain-10-large', 'Drain {largeJobs}, 10 handlers'),
  drainRow('drain-50-large', 'Drain {largeJobs}, 50 handlers'),
  drainRow('two-process-10', 'Drain {jobs}, 2 processes × 10 handlers'),
  drainRow('two-process-50', 'Drain {jobs}, 2 processes × 50 handlers'),
  drainRow('two-process-10-large', 'Drain {largeJobs}, 2 processes × 10 handlers'),
  drainRow('two-process-50-large', 'Drain {largeJobs}, 2 processes × 50 handlers'),
  {
    case: 'drain-default',
    metric: 'jobsPerSec',
    label: 'Drain {largeJobs}, default settings vs tuned',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: { variant: 'same', case: 'drain-10-large', label: 'tuned, same strategy' },
    targets: BOTH(0.8),
  },
  {
    case: 'drain-default',
    metric: 'jobsPerSec',
    label: 'Drain {largeJobs}, default settings vs floor',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: { variant: 'floor', case: 'drain-10-large', label: 'floor' },
    targets: {},
  },
  {
    case: 'drain-10-watched',
    metric: 'jobsPerSec',
    label: 'Drain {jobs}, 10 handlers, live events watched vs not',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: { variant: 'same', case: 'drain-10', label: 'not watched, same strategy' },
    targets: {},
  },
  latencyRow('latency', 'p50Ms', 'Pickup latency p50, producer in the worker'),
  latencyRow('latency', 'p99Ms', 'Pickup latency p99, producer in the worker'),
  latencyRow('latency-remote', 'p50Ms', 'Pickup latency p50, producer in another process'),
  latencyRow('latency-remote', 'p99Ms', 'Pickup latency p99, producer in another process'),
  {
    case: 'enqueue',
    metric: 'jobsPerSec',
    label: 'Bulk enqueue, enqueueMany',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: FLOOR,
    targets: BOTH(0.8),
  },
  {
    case: 'enqueue-http-batch',
    metric: 'jobsPerSec',
    label: 'Bulk enqueue, POST /jobs/batch',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: { variant: 'floor', case: 'enqueue', label: 'floor multi-row INSERT' },
    targets: BOTH(0.8),
  },
  {
    case: 'http-express',
    metric: 'requestsPerSec',
    label: 'POST /jobs, Express',
    unit: 'req/s',
    direction: 'higher',
    baseline: FLOOR,
    targets: BOTH(2),
  },
  {
    case: 'http-express',
    metric: 'p99Ms',
    label: 'POST /jobs p99, Express',
    unit: 'ms',
    direction: 'lower',
    baseline: FLOOR,
    targets: BOTH(1.0),
  },
  {
    case: 'http-fastify',
    metric: 'requestsPerSec',
    label: 'POST /jobs, Fastify',
    unit: 'req/s',
    direction: 'higher',
    baseline: FLOOR,
    targets: BOTH(2),
  },
  {
    case: 'http-fastify',
    metric: 'p99Ms',
    label: 'POST /jobs p99, Fastify',
    unit: 'ms',
    direction: 'lower',
    baseline: FLOOR,
    targets: BOTH(1.0),
  },
  {
    case: 'growth-pending',
    metric: 'jobsPerSec',
    label: 'Drain {pendingJobs} pending vs {largeJobs} on an empty table',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: { variant: 'same', case: 'drain-10-large', label: 'empty table, same variant' },
    targets: BOTH(0.9),
  },
  {
    case: 'growth-history',
    metric: 'jobsPerSec',
    label: 'Drain {largeJobs} over {history} finished vs empty table',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: { variant: 'same', case: 'drain-10-large', label: 'empty table, same variant' },
    targets: BOTH(0.9),
  },
  {
    case: 'growth-pending',
    metric: 'jobsPerSec',
    label: 'Drain {pendingJobs} pending vs floor',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: FLOOR,
    targets: {},
  },
  {
    case: 'growth-history',
    metric: 'jobsPerSec',
    label: 'Drain over {history} finished vs floor',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: FLOOR,
    targets: {},
  },
];

const DRAINS: CaseName[] = [
  'drain-10',
  'drain-50',
  'drain-10-large',
  'drain-50-large',
  'drain-default',
  'drain-10-watched',
  'two-process-10',
  'two-process-50',
  'two-process-10-large',
  'two-process-50-large',
  'growth-pending',
  'growth-pending-api',
  'growth-history',
];

/** A growth drain's peak RSS, held to the memory goal, and its RSS when the drain started. */
function memoryRows(name: CaseName, drain: string): AbsoluteRowDef[] {
  return [
    { cases: [name], metric: 'peakRssMb', label: `Peak RSS ${drain}`, unit: 'MB (worst run)', aggregate: 'max', max: 250, strict: true },
    { cases: [name], metric: 'rssAtStartMb', label: `RSS at the start, ${drain}`, unit: 'MB', aggregate: 'median' },
  ];
}

/** The resource and correctness goals. */
export const ABSOLUTE_ROWS: AbsoluteRowDef[] = [
  { cases: DRAINS, metric: 'duplicates', label: 'Drains: duplicates', unit: 'jobs (worst run of any drain)', aggregate: 'max', max: 0 },
  { cases: DRAINS, metric: 'missing', label: 'Drains: missing', unit: 'jobs (worst run of any drain)', aggregate: 'max', max: 0 },
  ...memoryRows('growth-pending', 'draining {pendingJobs}'),
  ...memoryRows('growth-pending-api', 'draining {pendingJobs}, REST API served from the same process'),
  { cases: ['idle'], metric: 'cpuPercent', label: 'Idle worker CPU', unit: '% of a core', aggregate: 'median', max: 2, strict: true },
  { cases: ['idle'], metric: 'queriesPerPoll', label: 'Idle queries', unit: 'per poll interval', aggregate: 'median', max: 1 },
  { cases: ['idle'], metric: 'pgCpuPercent', label: 'Idle PostgreSQL CPU', unit: '% of a core', aggregate: 'median' },
];

/** Cases whose CPU per 1,000 jobs (or requests) is tabulated. */
export const CPU_CASES: CaseName[] = [
  'enqueue',
  'enqueue-http-batch',
  'drain-10',
  'drain-50',
  'drain-10-large',
  'drain-50-large',
  'drain-default',
  'drain-10-watched',
  'two-process-10-large',
  'growth-pending',
  'growth-history',
  'latency',
  'latency-remote',
  'http-express',
  'http-fastify',
];

/** A label with the run's sizes in place of `{jobs}`, `{largeJobs}`, `{pendingJobs}` and `{history}`. */
export function sizedLabel(label: string, sizes: CaseSizes): string {
  return label.replace(/\{(jobs|largeJobs|pendingJobs|history)\}/g, (_, key: 'jobs' | 'largeJobs' | 'pendingJobs' | 'history') =>
    compactCount(sizes[key]),
  );
}

/** 20000 → 20k, 1000000 → 1M, 1500 → 1,500. */
function compactCount(n: number): string {
  if (n >= 1_000_000 && n % 100_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 10_000 && n % 1_000 === 0) return `${n / 1_000}k`;
  return n.toLocaleString('en-US');
}
