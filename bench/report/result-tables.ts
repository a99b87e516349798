import { isFloorVariant } from '../shared/bench-case';
import { agg, num, ratio, status, targetText } from './format';
import { Summary } from './summary';

/** The tables of a run as rows of cells, shared by the console and the Markdown report. */
export interface ResultTables {
  ratios: string[][];
  absolute: string[][];
  cpu: string[][];
}

export function resultTables(summary: Summary): ResultTables {
  const ratios = [['Case', 'Variant', 'Value', 'Baseline', 'Ratio', 'Target', 'Status']];
  for (const row of summary.ratioRows) {
    ratios.push([
      `${row.label} (${row.def.unit})`,
      row.variant,
      agg(row.value),
      `${agg(row.baseline)} (${row.def.baseline.label})`,
      ratio(row.ratio),
      targetText(row.def.direction, row.target),
      status(row.pass),
    ]);
  }

  const absolute = [['Measure', 'Variant', 'Value', 'Judged', 'Target', 'Status']];
  for (const row of summary.absoluteRows) {
    const target = row.def.max === undefined || isFloorVariant(row.variant) ? '' : `${row.def.strict ? '<' : '≤'} ${row.def.max}`;
    absolute.push([`${row.label} (${row.def.unit})`, row.variant, agg(row.value), num(row.judged), target, status(row.pass)]);
  }

  const cpu = [['Case', 'Variant', 'Node CPU ms / 1k', 'PostgreSQL CPU ms / 1k']];
  for (const row of summary.cpuRows) cpu.push([row.case, row.variant, agg(row.nodeCpuMsPer1k), agg(row.pgCpuMsPer1k)]);
  return { ratios, absolute, cpu };
}
