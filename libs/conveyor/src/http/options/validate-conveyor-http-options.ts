import { definedFields, integer } from '../../config/option-rules';
import { ConveyorConfigError } from '../../errors/conveyor-config.error';
import { API_ROLES, ApiRole } from './api-role';
import { conveyorHttpDefaults } from './conveyor-http-defaults';
import { ConveyorHttpOptions, ConveyorHttpSettings, LiveStreamOptions, RateLimitOptions } from './conveyor-http-options.interface';

/** The longest rate-limit window (a day) and the largest number of requests per window. */
export const MAX_RATE_LIMIT_WINDOW_MS = 86_400_000;
export const MAX_RATE_LIMIT_MAX = 1_000_000_000;

/** What a key may look like: visible ASCII without spaces, so it fits an `Authorization: Bearer` header. */
const KEY_PATTERN = /^[\x21-\x7e]+$/;

/** Every option's name, and every field of the nested ones; the compiler checks each list against its interface. */
const OPTION_NAMES = Object.keys({ apiKeys: true, rateLimit: true, live: true } satisfies Record<keyof ConveyorHttpOptions, true>);
const RATE_LIMIT_NAMES = Object.keys({ windowMs: true, max: true, maxTracked: true } satisfies Record<keyof RateLimitOptions, true>);
const LIVE_NAMES = Object.keys({ maxBufferBytes: true, pingIntervalMs: true } satisfies Record<keyof LiveStreamOptions, true>);

/**
 * Refuses what is no object, and a key that is no option: ignored, a misspelt `apiKeys` in what a forRootAsync
 * factory returns would leave the API without authentication. Fields set to undefined take their defaults.
 */
function readObject(field: string, value: unknown, names: string[], example: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConveyorConfigError(field || 'options', `must be an object such as ${example}`);
  }
  for (const key of Object.keys(value)) {
    if (names.includes(key)) continue;
    const name = field ? `${field}.${key}` : key;
    // The mount path shapes the module, so it is read before any factory runs.
    if (!field && key === 'path')
      throw new ConveyorConfigError(key, 'goes beside useFactory, not in what it returns: forRootAsync({ path, useFactory })');
    throw new ConveyorConfigError(name, `is not an option of ConveyorHttpModule (known: ${names.join(', ')})`);
  }
  return definedFields(value) as Record<string, unknown>;
}

/**
 * Merges the options over the defaults and checks them, naming the first bad field. Problems with a key
 * name its position only: a key must never reach an error message or a log.
 */
export function validateConveyorHttpOptions(options: ConveyorHttpOptions = {}): ConveyorHttpSettings {
  const input = readObject('', options, OPTION_NAMES, '{ apiKeys, rateLimit, live }') as ConveyorHttpOptions;
  const apiKeys = input.apiKeys === undefined ? [] : input.apiKeys;
  if (!Array.isArray(apiKeys)) throw new ConveyorConfigError('apiKeys', 'must be a list of { role, key }');
  apiKeys.forEach((entry, i) => {
    if (!API_ROLES.includes(entry?.role as ApiRole)) {
      throw new ConveyorConfigError(`apiKeys[${i}].role`, `must be one of ${API_ROLES.join(', ')}`);
    }
    if (typeof entry.key !== 'string' || !KEY_PATTERN.test(entry.key)) {
      throw new ConveyorConfigError(`apiKeys[${i}].key`, 'must be a non-empty string of visible ASCII characters without spaces');
    }
  });

  const live = { ...conveyorHttpDefaults().live, ...readObject('live', input.live, LIVE_NAMES, '{ pingIntervalMs: 15000 }') };
  integer('live.maxBufferBytes', live.maxBufferBytes, 1024, 1024 * 1024 * 1024);
  integer('live.pingIntervalMs', live.pingIntervalMs, 100, 3_600_000);

  if (input.rateLimit === false) return { apiKeys, rateLimit: null, live };
  const rateLimit = {
    ...conveyorHttpDefaults().rateLimit,
    ...readObject('rateLimit', input.rateLimit, RATE_LIMIT_NAMES, '{ windowMs: 60000, max: 6000 }, or false'),
  };
  integer('rateLimit.windowMs', rateLimit.windowMs, 1, MAX_RATE_LIMIT_WINDOW_MS);
  integer('rateLimit.max', rateLimit.max, 1, MAX_RATE_LIMIT_MAX);
  integer('rateLimit.maxTracked', rateLimit.maxTracked, 1, 10_000_000);
  return { apiKeys, rateLimit, live };
}
