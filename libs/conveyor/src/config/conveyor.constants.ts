/** DI token of the validated, defaulted {@link ConveyorOptions}. */
export const CONVEYOR_OPTIONS = Symbol('CONVEYOR_OPTIONS');
/** DI token of the TypeORM DataSource Conveyor stores its tables in. */
export const CONVEYOR_DATA_SOURCE = Symbol('CONVEYOR_DATA_SOURCE');
/** DI token of the active {@link ClaimStrategy} (chosen by `claimStrategy`). */
export const CLAIM_STRATEGY = Symbol('CLAIM_STRATEGY');
