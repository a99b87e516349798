import { CASE_NAMES, CaseName, CaseSizes, Variant, VARIANTS } from './bench-case';

/** Settings of one `npm run bench` run. */
export interface BenchOptions {
  quick: boolean;
  repeat: number;
  sizes: CaseSizes;
  cases: CaseName[];
  variants: Variant[];
  /** Markdown report path; the SVG chart is written next to it with the same base name. */
  out: string;
  /** Longest a single case process may run before it is killed and reported as failed. */
  caseTimeoutMs: number;
  /** Use this server instead of an embedded one. */
  databaseUrl?: string;
  /** Case processes compile their TypeScript on the fly instead of running a compiled copy. */
  fromSource: boolean;
}

const FULL: CaseSizes = {
  jobs: 20_000,
  largeJobs: 100_000,
  pendingJobs: 1_000_000,
  history: 10_000_000,
  chunk: 1_000,
  latencyJobs: 500,
  latencyIntervalMs: 20,
  httpSeconds: 10,
  httpConnections: 16,
  idleSeconds: 30,
  warmUpJobs: 2_000,
};

/** Small enough that every case runs in seconds: proves the benchmark works, measures nothing. */
const QUICK: CaseSizes = {
  ...FULL,
  jobs: 2_000,
  largeJobs: 5_000,
  pendingJobs: 20_000,
  history: 50_000,
  latencyJobs: 50,
  httpSeconds: 2,
  idleSeconds: 3,
  warmUpJobs: 200,
};

/** Full runs report medians of this many repetitions (the issue asks for at least five). */
const FULL_REPEAT = 5;

/** Flag name, environment variable, the size it sets and the smallest value it takes. */
const SIZE_FLAGS: [flag: string, env: string, key: keyof CaseSizes, min: number][] = [
  ['jobs', 'BENCH_JOBS', 'jobs', 1],
  ['large-jobs', 'BENCH_LARGE_JOBS', 'largeJobs', 1],
  ['pending-jobs', 'BENCH_PENDING_JOBS', 'pendingJobs', 1],
  ['history', 'BENCH_HISTORY', 'history', 1],
  ['chunk', 'BENCH_CHUNK', 'chunk', 1],
  ['latency-jobs', 'BENCH_LATENCY_JOBS', 'latencyJobs', 1],
  ['latency-interval-ms', 'BENCH_LATENCY_INTERVAL_MS', 'latencyIntervalMs', 1],
  ['http-seconds', 'BENCH_HTTP_SECONDS', 'httpSeconds', 1],
  ['http-connections', 'BENCH_HTTP_CONNECTIONS', 'httpConnections', 1],
  ['idle-seconds', 'BENCH_IDLE_SECONDS', 'idleSeconds', 1],
  ['warm-up-jobs', 'BENCH_WARM_UP_JOBS', 'warmUpJobs', 0],
];

export const USAGE = `Usage: npm run bench -- [options]

  --quick                  small sizes and one repetition (a few minutes)
  --repeat N               repetitions; medians and min-max are reported   [5, quick 1]   BENCH_REPEAT
  --jobs N                 jobs of the smaller drains and of bulk enqueue   [20000, quick 2000]      BENCH_JOBS
  --large-jobs N           jobs of the large and default-settings drains    [100000, quick 5000]     BENCH_LARGE_JOBS
  --pending-jobs N         pending jobs of the growth-pending drain (RSS)   [1000000, quick 20000]   BENCH_PENDING_JOBS
  --history N              finished rows under the growth-history drain     [10000000, quick 50000]  BENCH_HISTORY
  --chunk N                jobs per enqueue statement or batch request      [1000]         BENCH_CHUNK
  --latency-jobs N         jobs of each latency case                        [500, quick 50]  BENCH_LATENCY_JOBS
  --latency-interval-ms N  gap between latency jobs                         [20]           BENCH_LATENCY_INTERVAL_MS
  --http-seconds N         autocannon duration                              [10, quick 2]        BENCH_HTTP_SECONDS
  --http-connections N     autocannon connections                           [16]           BENCH_HTTP_CONNECTIONS
  --idle-seconds N         idle measurement                                 [30, quick 3]        BENCH_IDLE_SECONDS
  --warm-up-jobs N         jobs run before measuring enqueue and drains; 0: cold  [2000, quick 200]  BENCH_WARM_UP_JOBS
  --cases a,b              any of ${CASE_NAMES.join(', ')}   BENCH_CASES
  --variants a,b           any of ${VARIANTS.join(', ')}   BENCH_VARIANTS
  --out FILE               report path [docs/performance.md, quick: docs/performance-quick.md]  BENCH_OUT
  --case-timeout-s N       kill a case process after N seconds              [900]          BENCH_CASE_TIMEOUT_S
  --from-source            case processes compile TypeScript on the fly (with source maps) instead of running
                           a compiled copy; adds the compiler to every process's memory          BENCH_FROM_SOURCE

  DATABASE_URL             benchmark this server instead of an embedded PostgreSQL
  BENCH_PG_CPU             server | backends | none: how PostgreSQL CPU is measured (default: see docs)`;

/** Thrown for a bad flag or environment value (the message names it), and for `--help` (no message). */
export class BenchOptionsError extends Error {
  readonly isHelp: boolean;

  constructor(message: string) {
    super(message ? `${message}\n\n${USAGE}` : USAGE);
    this.name = 'BenchOptionsError';
    this.isHelp = !message;
  }
}

/** Reads flags (which win) and BENCH_* environment variables. */
export function parseBenchOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const flags = readFlags(argv);
  const pick = (flag: string, envName: string): string | undefined => {
    const value = flags.get(flag) ?? env[envName];
    flags.delete(flag);
    return value;
  };
  const quick = pick('quick', 'BENCH_QUICK') !== undefined;
  const fromSource = pick('from-source', 'BENCH_FROM_SOURCE') !== undefined;
  const sizes: CaseSizes = { ...(quick ? QUICK : FULL) };
  for (const [flag, envName, key, min] of SIZE_FLAGS) {
    const value = pick(flag, envName);
    if (value !== undefined) sizes[key] = integerAtLeast(flag, value, min);
  }
  const repeat = pick('repeat', 'BENCH_REPEAT');
  const timeout = pick('case-timeout-s', 'BENCH_CASE_TIMEOUT_S');
  const options: BenchOptions = {
    quick,
    repeat: repeat === undefined ? (quick ? 1 : FULL_REPEAT) : integerAtLeast('repeat', repeat, 1),
    sizes,
    cases: subset('cases', pick('cases', 'BENCH_CASES'), CASE_NAMES),
    variants: subset('variants', pick('variants', 'BENCH_VARIANTS'), VARIANTS),
    out: pick('out', 'BENCH_OUT') ?? (quick ? 'docs/performance-quick.md' : 'docs/performance.md'),
    caseTimeoutMs: (timeout === undefined ? 900 : integerAtLeast('case-timeout-s', timeout, 1)) * 1000,
    databaseUrl: env.DATABASE_URL || undefined,
    fromSource,
  };
  if (flags.has('help')) throw new BenchOptionsError('');
  const unknown = [...flags.keys()];
  if (unknown.length > 0) throw new BenchOptionsError(`Unknown option --${unknown[0]}`);
  return options;
}

/** `--name value`, `--name=value` and bare `--name` (value ''). */
function readFlags(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new BenchOptionsError(`Unexpected argument "${arg}"`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (inline !== undefined) flags.set(name, inline);
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) flags.set(name, argv[++i]);
    else flags.set(name, '');
  }
  return flags;
}

/** An integer of at least `min` (0 or 1), or a BenchOptionsError naming the flag. */
function integerAtLeast(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new BenchOptionsError(`--${name} must be ${min === 0 ? '0 or ' : ''}a positive integer, got "${value}"`);
  }
  return n;
}

function subset<T extends string>(name: string, value: string | undefined, all: readonly T[]): T[] {
  if (value === undefined || value === '') return [...all];
  const picked = value.split(',').map((s) => s.trim());
  const bad = picked.find((p) => !all.includes(p as T));
  if (bad) throw new BenchOptionsError(`--${name}: unknown "${bad}" (one of ${all.join(', ')})`);
  // Keep the canonical order, whatever order they were given in.
  return all.filter((a) => picked.includes(a));
}
