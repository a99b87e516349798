/**
 * The rule for the names an operator types into paths, environment variables and metric labels: queues and cron
 * schedules. One rule everywhere, so every queue a job can be in can also be paused, capped and named in a path.
 */
export const NAME_CHARACTERS = /^[A-Za-z0-9_.:-]+$/;
export const NAME_MAX_LENGTH = 200;

/** The rule in words, as the problem a refusal names. */
export const NAME_RULE = 'must be 1-200 of letters, digits, _ . : -';

/** Whether `value` is a well-formed queue or schedule name. */
export function isWellFormedName(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= NAME_MAX_LENGTH && NAME_CHARACTERS.test(value);
}
