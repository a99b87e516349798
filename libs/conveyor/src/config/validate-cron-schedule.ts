import { CronScheduleError } from '../errors/cron-schedule.error';
import { CronExpression, MAX_CATCH_UP } from './cron-expression';
import { isWellFormedName, NAME_RULE } from './name-rule';

const KNOWN_FIELDS = ['name', 'type', 'cron', 'timezone', 'payload', 'catchUp'];

/**
 * Checks one schedule's own fields (everything but the payload, which needs the handler registry) and
 * parses its expression. `field` prefixes the names in errors; `withType` is set for engine-option
 * schedules, which name their job type. Throws {@link CronScheduleError}.
 */
export function validateCronSchedule(input: unknown, field: string, withType: boolean): CronExpression {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new CronScheduleError(field, 'must be an object such as { "name": "nightly", "type": "REPORT", "cron": "0 3 * * *" }');
  }
  const s = input as Record<string, unknown>;
  const known = withType ? KNOWN_FIELDS : KNOWN_FIELDS.filter((k) => k !== 'type');
  const unknown = Object.keys(s).find((k) => !known.includes(k));
  if (unknown) throw new CronScheduleError(`${field}.${unknown}`, `is not a known field (known: ${known.join(', ')})`);
  if ((withType || s.name !== undefined) && !isWellFormedName(s.name)) {
    throw new CronScheduleError(`${field}.name`, NAME_RULE);
  }
  if (withType && (typeof s.type !== 'string' || s.type.length === 0 || s.type.length > 200)) {
    throw new CronScheduleError(`${field}.type`, 'must be a job type (1-200 characters)');
  }
  if (s.timezone !== undefined && typeof s.timezone !== 'string')
    throw new CronScheduleError(`${field}.timezone`, 'must be an IANA time zone name');
  if (
    s.catchUp !== undefined &&
    (typeof s.catchUp !== 'number' || !Number.isInteger(s.catchUp) || s.catchUp < 1 || s.catchUp > MAX_CATCH_UP)
  ) {
    throw new CronScheduleError(`${field}.catchUp`, `must be an integer between 1 and ${MAX_CATCH_UP}`);
  }
  if (typeof s.cron !== 'string') throw new CronScheduleError(`${field}.cron`, 'must be a cron expression such as "*/5 * * * *"');
  const timezone = (s.timezone as string | undefined) ?? 'UTC';
  try {
    return CronExpression.parse(s.cron, timezone);
  } catch (err) {
    const message = (err as Error).message;
    throw new CronScheduleError(message.startsWith('unknown time zone') ? `${field}.timezone` : `${field}.cron`, message);
  }
}
