import { Client } from 'pg';
import { CPU_METER_APPLICATION_NAME } from './postgres-cpu-meter';

/** Statements sent, grouped by a short label (prepared-statement name, or the first words of the SQL). */
export interface QueryCounts {
  total: number;
  byStatement: Record<string, number>;
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Counts every statement this process sends, by wrapping `pg.Client.prototype.query`. Pools, TypeORM
 * and the engine's dedicated LISTEN and leader connections all go through that method, so this sees
 * each query once, whichever connection it uses, and nothing of other processes. The CPU meter's own
 * connection is left out.
 */
export class QueryCounter {
  private original: QueryFn | null = null;
  private counts: QueryCounts = { total: 0, byStatement: {} };

  install(): void {
    if (this.original) return;
    const proto = Client.prototype as unknown as { query: QueryFn };
    const original = proto.query;
    this.original = original;
    const counts = () => this.counts;
    proto.query = function (this: { connectionParameters?: { application_name?: string } }, ...args: unknown[]) {
      if (this.connectionParameters?.application_name === CPU_METER_APPLICATION_NAME) return original.apply(this, args);
      const c = counts();
      const label = labelOf(args[0]);
      c.total++;
      c.byStatement[label] = (c.byStatement[label] ?? 0) + 1;
      return original.apply(this, args);
    };
  }

  /** Starts counting from zero. */
  reset(): void {
    this.counts = { total: 0, byStatement: {} };
  }

  snapshot(): QueryCounts {
    return { total: this.counts.total, byStatement: { ...this.counts.byStatement } };
  }

  uninstall(): void {
    if (this.original) (Client.prototype as unknown as { query: QueryFn }).query = this.original;
    this.original = null;
  }
}

function labelOf(query: unknown): string {
  if (typeof query === 'object' && query !== null) {
    const q = query as { name?: string; text?: string };
    if (q.name) return q.name.replace(/_[0-9a-f]{12}$/, '');
    return firstWords(q.text ?? '?');
  }
  return typeof query === 'string' ? firstWords(query) : '?';
}

/** The statement's start, with schema names blanked so the same statement counts once across runs. */
function firstWords(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/"[^"]*"\./g, '')
    .trim()
    .slice(0, 60);
}
