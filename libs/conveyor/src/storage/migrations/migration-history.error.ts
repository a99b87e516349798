/**
 * The schema's migration table records a migration under an id this build gives to another one: the schema was
 * migrated by a pre-release build (whose migrations were folded into the 0.1.0 baseline) or by a foreign tool.
 * Migrating on would skip migrations the schema lacks, so start-up stops instead.
 */
export class MigrationHistoryError extends Error {
  constructor(
    readonly schema: string,
    readonly id: number,
    readonly applied: string,
    readonly expected: string,
  ) {
    super(
      `Schema "${schema}" records migration ${id} as "${applied}", but this build's migration ${id} is "${expected}". ` +
        'It was migrated by a pre-release build of Conveyor: drop its conveyor_* tables and functions (or the schema) and start again.',
    );
    this.name = 'MigrationHistoryError';
  }
}
