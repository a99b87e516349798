/**
 * The queue implementations a case can run against, in the order they run within a repetition: the floor
 * (bench/floor, independent claim loops: the baseline of every ratio), two labelled references — the same floor
 * shaped like Conveyor's pipeline (floor-pipelined-worker.ts) and the floor's loops and statements on Conveyor's jobs
 * table (floor-conveyor-table.sql.ts) — and Conveyor with each claim strategy.
 */
export const VARIANTS = ['floor', 'floor-pipelined', 'floor-conveyor-table', 'skip-locked', 'optimistic'] as const;
export type Variant = (typeof VARIANTS)[number];

/** The three forms of the reference queue in bench/floor. */
export type FloorVariant = Extract<Variant, 'floor' | 'floor-pipelined' | 'floor-conveyor-table'>;

/** The Conveyor variants (claim strategies). */
export type ConveyorVariant = Exclude<Variant, FloorVariant>;

export function isFloorVariant(variant: Variant): variant is FloorVariant {
  return variant === 'floor' || variant === 'floor-pipelined' || variant === 'floor-conveyor-table';
}

/** Every case, in the order a repetition runs them. */
export const CASE_NAMES = [
  'enqueue',
  'enqueue-http-batch',
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
  'latency',
  'latency-remote',
  'http-express',
  'http-fastify',
  'growth-pending',
  'growth-pending-api',
  'growth-history',
  'idle',
] as const;
export type CaseName = (typeof CASE_NAMES)[number];

/**
 * Which variants a case runs. The pipelined floor differs from the floor only in its worker, so it runs where a
 * worker drains (to explain a drain or latency ratio) and nowhere else. The floor on Conveyor's table explains what
 * the table costs the bulk enqueue and the 100,000-job drains, in one process and two, and runs those alone.
 * `drain-default` and `enqueue-http-batch` compare Conveyor with itself or with the floor's `enqueue`, so the floors
 * do not run them.
 */
export function caseRunsVariant(name: CaseName, variant: Variant): boolean {
  if (name === 'drain-default' || name === 'drain-10-watched' || name === 'enqueue-http-batch') return !isFloorVariant(variant);
  if (variant === 'floor-pipelined') return /^(drain-(10|50)|two-process-|latency)/.test(name);
  if (variant === 'floor-conveyor-table') return name === 'enqueue' || name === 'drain-10-large' || name === 'two-process-10-large';
  return true;
}

/** Sizes of the work each case does; `--quick` shrinks them. */
export interface CaseSizes {
  /** Jobs enqueued and drained by the smaller drains (`drain-10`, `drain-50`, `two-process-10`, …). */
  jobs: number;
  /** Jobs of the large drains (`*-large`), of the default-settings drain and of the growth-history drain. */
  largeJobs: number;
  /** Pending jobs the growth-pending case drains (and whose worker's peak RSS it reports). */
  pendingJobs: number;
  /** Finished rows retained in the table under the growth-history drain. */
  history: number;
  /** Jobs per enqueueMany / multi-row INSERT statement / POST /jobs/batch request. */
  chunk: number;
  /** Jobs of the latency cases, one every `latencyIntervalMs`. */
  latencyJobs: number;
  latencyIntervalMs: number;
  httpSeconds: number;
  httpConnections: number;
  idleSeconds: number;
  /**
   * Jobs each measuring process runs through a throwaway queue of its own variant first (enqueue and drain),
   * so the enqueue, drain and two-process cases measure warm code; 0 measures a cold process.
   */
  warmUpJobs: number;
}

/** How the PostgreSQL CPU of a case is measured (see bench/measure/postgres-cpu-meter.ts). */
export type PgCpuConfig =
  { mode: 'server'; postmasterPid: number } | { mode: 'backends'; applicationPrefix: string } | { mode: 'none'; reason: string };

/** Everything a case process is told, passed as JSON in BENCH_CASE. */
export interface CaseSpec {
  case: CaseName;
  variant: Variant;
  rep: number;
  /** Database URL (no search_path: the schema is named explicitly). */
  url: string;
  /** Fresh schema created for this case by the runner and dropped after it. */
  schema: string;
  /** application_name prefix of every connection the case opens. */
  appName: string;
  sizes: CaseSizes;
  pgCpu: PgCpuConfig;
}

/** What one case process reports: numbers for the table plus details for the JSON line. */
export interface CaseResult {
  case: CaseName;
  variant: Variant;
  rep: number;
  ok: boolean;
  error?: string;
  metrics: Record<string, number>;
  details?: Record<string, unknown>;
}
