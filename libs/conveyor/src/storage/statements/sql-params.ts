/**
 * The parameters of a statement built from several pieces: each piece adds its values and writes the placeholder it
 * gets back, so pieces combine without renumbering each other's `$n`.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value; returns its placeholder (`$1`, `$2`, …). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
