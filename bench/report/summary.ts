import { median, spread } from '../measure/stats';
import { CaseName, CaseResult, CaseSizes, ConveyorVariant, isFloorVariant, Variant } from '../shared/bench-case';
import { ABSOLUTE_ROWS, AbsoluteRowDef, CPU_CASES, RATIO_ROWS, RatioRowDef, sizedLabel } from './targets';

/** Median and range of one series over the repetitions. */
export interface Aggregate {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export interface RatioRow {
  def: RatioRowDef;
  /** The definition's label with the run's sizes. */
  label: string;
  variant: Variant;
  value: Aggregate;
  baseline: Aggregate;
  /** Per-repetition ratios, aggregated. */
  ratio: Aggregate;
  target?: number;
  pass?: boolean;
}

export interface AbsoluteRow {
  def: AbsoluteRowDef;
  label: string;
  variant: Variant;
  value: Aggregate;
  /** The value the goal is judged on (median, or the worst run). */
  judged: number;
  pass?: boolean;
}

export interface CpuRow {
  case: CaseName;
  variant: Variant;
  nodeCpuMsPer1k: Aggregate;
  pgCpuMsPer1k: Aggregate;
}

export interface Summary {
  ratioRows: RatioRow[];
  absoluteRows: AbsoluteRow[];
  cpuRows: CpuRow[];
  failures: CaseResult[];
}

/** Turns every case result of a run into the report's rows. */
export function summarize(results: CaseResult[], variants: Variant[], repeat: number, sizes: CaseSizes): Summary {
  const value = (c: CaseName, v: Variant, rep: number, metric: string): number => {
    const r = results.find((x) => x.case === c && x.variant === v && x.rep === rep && x.ok);
    return r?.metrics[metric] ?? NaN;
  };
  const series = (c: CaseName, v: Variant, metric: string) => reps(repeat).map((rep) => value(c, v, rep, metric));
  const has = (c: CaseName, v: Variant) => results.some((r) => r.case === c && r.variant === v);

  const ratioRows: RatioRow[] = [];
  for (const def of RATIO_ROWS) {
    const baseCase: CaseName = def.baseline.case ?? def.case;
    // Against the floor: Conveyor's variants, and the pipelined floor for reference. Against itself: every variant.
    const rowVariants = variants.filter((v) => def.baseline.variant === 'same' || v !== 'floor');
    for (const variant of rowVariants) {
      const baseVariant: Variant = def.baseline.variant === 'floor' ? 'floor' : variant;
      if (!has(def.case, variant) || !has(baseCase, baseVariant)) continue;
      const values = series(def.case, variant, def.metric);
      const bases = series(baseCase, baseVariant, def.metric);
      const ratios = values.map((v, i) => v / bases[i]);
      const target = isFloorVariant(variant) ? undefined : def.targets[variant as ConveyorVariant];
      const ratio = aggregate(ratios);
      ratioRows.push({
        def,
        label: sizedLabel(def.label, sizes),
        variant,
        value: aggregate(values),
        baseline: aggregate(bases),
        ratio,
        target,
        pass:
          target === undefined || Number.isNaN(ratio.median)
            ? undefined
            : def.direction === 'higher'
              ? round2(ratio.median) >= target
              : round2(ratio.median) <= target,
      });
    }
  }

  const absoluteRows: AbsoluteRow[] = [];
  for (const def of ABSOLUTE_ROWS) {
    for (const variant of variants) {
      const cases = def.cases.filter((c) => has(c, variant));
      if (cases.length === 0) continue;
      const values = cases.flatMap((c) => series(c, variant, def.metric));
      const value = aggregate(values);
      // Judged at the precision shown (2 decimals): 3 queries in 2.9996 s is one per second, not a miss.
      const judged = round2(def.aggregate === 'max' ? value.max : value.median);
      const judge = def.max !== undefined && !isFloorVariant(variant) && !Number.isNaN(judged);
      absoluteRows.push({
        def,
        label: sizedLabel(def.label, sizes),
        variant,
        value,
        judged,
        pass: judge ? (def.strict ? judged < def.max! : judged <= def.max!) : undefined,
      });
    }
  }

  const cpuRows: CpuRow[] = [];
  for (const c of CPU_CASES) {
    for (const variant of variants) {
      if (!has(c, variant)) continue;
      cpuRows.push({
        case: c,
        variant,
        nodeCpuMsPer1k: aggregate(series(c, variant, 'nodeCpuMsPer1k')),
        pgCpuMsPer1k: aggregate(series(c, variant, 'pgCpuMsPer1k')),
      });
    }
  }
  return { ratioRows, absoluteRows, cpuRows, failures: results.filter((r) => !r.ok) };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function reps(repeat: number): number[] {
  return Array.from({ length: repeat }, (_, i) => i + 1);
}

function aggregate(values: number[]): Aggregate {
  const { min, max } = spread(values);
  return { median: median(values), min, max, runs: values.filter(Number.isFinite).length };
}
