import { CaseName, ConveyorVariant } from '../shared/bench-case';

/** A metric reported as a ratio of Conveyor to a baseline measured in the same repetition. */
export interface RatioRowDef {
  case: CaseName;
  metric: string;
  label: string;
  unit: string;
  /** `lower`: a ratio below 1 is better (latencies). */
  direction: 'higher' | 'lower';
  /** `floor`: the floor's value of the same case; `empty-table`: the same variant's drain-10. */
  baseline: 'floor' | 'empty-table';
  /** Goal per claim strategy; a variant without one is shown for information. */
  targets: Partial<Record<ConveyorVariant, number>>;
}

/** A metric judged on its own value. */
export interface AbsoluteRowDef {
  case: CaseName;
  metric: string;
  label: string;
  unit: string;
  /** How repetitions are combined: the median, or the worst (for correctness counts). */
  aggregate: 'median' | 'max';
  /** Upper bound for Conveyor variants; `strict` means the value must stay below it. */
  max?: number;
  strict?: boolean;
}

/** The goals, as ratios to the floor (medians of the repetitions). */
export const RATIO_ROWS: RatioRowDef[] = [
  {
    case: 'enqueue',
    metric: 'jobsPerSec',
    label: 'Bulk enqueue',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: 'floor',
    targets: { 'skip-locked': 0.5, optimistic: 0.5 },
  },
  {
    case: 'drain-10',
    metric: 'jobsPerSec',
    label: 'Drain, 10 handlers, batch 100',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: 'floor',
    targets: { 'skip-locked': 0.7, optimistic: 0.5 },
  },
  {
    case: 'drain-50',
    metric: 'jobsPerSec',
    label: 'Drain, 50 handlers, batch 100',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: 'floor',
    targets: { 'skip-locked': 0.7 },
  },
  {
    case: 'two-process',
    metric: 'jobsPerSec',
    label: 'Two worker processes',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: 'floor',
    targets: { 'skip-locked': 0.7, optimistic: 0.7 },
  },
  {
    case: 'latency',
    metric: 'p50Ms',
    label: 'Pickup latency p50',
    unit: 'ms',
    direction: 'lower',
    baseline: 'floor',
    targets: { 'skip-locked': 1.2, optimistic: 1.2 },
  },
  { case: 'latency', metric: 'p95Ms', label: 'Pickup latency p95', unit: 'ms', direction: 'lower', baseline: 'floor', targets: {} },
  {
    case: 'latency',
    metric: 'p99Ms',
    label: 'Pickup latency p99',
    unit: 'ms',
    direction: 'lower',
    baseline: 'floor',
    targets: { 'skip-locked': 1.5, optimistic: 1.5 },
  },
  {
    case: 'http',
    metric: 'requestsPerSec',
    label: 'POST /jobs throughput',
    unit: 'req/s',
    direction: 'higher',
    baseline: 'floor',
    targets: {},
  },
  { case: 'http', metric: 'p99Ms', label: 'POST /jobs latency p99', unit: 'ms', direction: 'lower', baseline: 'floor', targets: {} },
  {
    case: 'backlog',
    metric: 'jobsPerSec',
    label: 'Drain at backlog vs empty table',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: 'empty-table',
    targets: { 'skip-locked': 0.8, optimistic: 0.8 },
  },
  {
    case: 'backlog',
    metric: 'jobsPerSec',
    label: 'Drain at backlog vs floor at backlog',
    unit: 'jobs/s',
    direction: 'higher',
    baseline: 'floor',
    targets: {},
  },
];

/** The idle and correctness goals. */
export const ABSOLUTE_ROWS: AbsoluteRowDef[] = [
  { case: 'idle', metric: 'cpuPercent', label: 'Idle worker CPU', unit: '% of a core', aggregate: 'median', max: 2, strict: true },
  { case: 'idle', metric: 'queriesPerPoll', label: 'Idle queries', unit: 'per poll interval', aggregate: 'median', max: 1 },
  { case: 'idle', metric: 'pgCpuPercent', label: 'Idle PostgreSQL CPU', unit: '% of a core', aggregate: 'median' },
  { case: 'two-process', metric: 'duplicates', label: 'Two processes: duplicates', unit: 'jobs (worst run)', aggregate: 'max', max: 0 },
  { case: 'two-process', metric: 'missing', label: 'Two processes: missing', unit: 'jobs (worst run)', aggregate: 'max', max: 0 },
];

/** Cases whose CPU per 1,000 jobs (or requests) is tabulated. */
export const CPU_CASES: CaseName[] = ['enqueue', 'drain-10', 'drain-50', 'two-process', 'backlog', 'latency', 'http'];
