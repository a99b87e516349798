/** The queue implementations every case runs against, in the order they run within a repetition. */
export const VARIANTS = ['floor', 'skip-locked', 'optimistic'] as const;
export type Variant = (typeof VARIANTS)[number];

/** The Conveyor variants (claim strategies); `floor` is the reference queue in bench/floor. */
export type ConveyorVariant = Exclude<Variant, 'floor'>;

/** Every case, in the order a repetition runs them. */
export const CASE_NAMES = ['enqueue', 'drain-10', 'drain-50', 'latency', 'two-process', 'http', 'backlog', 'idle'] as const;
export type CaseName = (typeof CASE_NAMES)[number];

/** Sizes of the work each case does; `--quick` shrinks them. */
export interface CaseSizes {
  /** Jobs enqueued and drained by the throughput cases. */
  jobs: number;
  /** Jobs per enqueueMany / multi-row INSERT statement. */
  chunk: number;
  /** Jobs of the latency case, one every `latencyIntervalMs`. */
  latencyJobs: number;
  latencyIntervalMs: number;
  /** Finished rows already in the table for the backlog case. */
  backlog: number;
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
