/**
 * A quiet insert: one whose statement keeps the insert trigger from firing (no NOTIFY), because the instance that
 * runs it claims the new jobs itself and announces only those its claim left (see LocalPickup).
 *
 * The statement sets a transaction-local setting, which the trigger's WHEN condition reads at the end of the
 * statement. Only statements that commit on their own are made quiet: in a longer transaction the setting would
 * silence every later insert of that transaction too. The two values below are written into that condition by
 * the baseline migration (see storage/schema.sql): changing either takes a new migration.
 */
export const ANNOUNCE_SETTING = 'conveyor.announce';
/** The value that silences the trigger. */
export const ANNOUNCE_DEFERRED = 'deferred';

/**
 * A WHERE condition that sets the setting and holds for every row. A volatile function in WHERE is evaluated
 * for each row and cannot be optimised away, unlike one in a select list nobody reads; quiet inserts are a few
 * rows (what the pool has room for), so evaluating it per row costs nothing measurable.
 */
export const QUIET_CONDITION = `set_config('${ANNOUNCE_SETTING}', '${ANNOUNCE_DEFERRED}', true) IS NOT NULL`;
