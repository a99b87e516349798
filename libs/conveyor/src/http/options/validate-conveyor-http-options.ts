import { ConveyorConfigError } from '../../errors/conveyor-config.error';
import { API_ROLES, ApiRole } from './api-role';
import { conveyorHttpDefaults } from './conveyor-http-defaults';
import { ConveyorHttpOptions, ConveyorHttpSettings } from './conveyor-http-options.interface';

/** What a key may look like: visible ASCII without spaces, so it fits an `Authorization: Bearer` header. */
const KEY_PATTERN = /^[\x21-\x7e]+$/;

function integer(field: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConveyorConfigError(field, `must be an integer between ${min} and ${max}`);
  }
}

/**
 * Merges the options over the defaults and checks them, naming the first bad field. Problems with a key
 * name its position only: a key must never reach an error message or a log.
 */
export function validateConveyorHttpOptions(input: ConveyorHttpOptions = {}): ConveyorHttpSettings {
  const apiKeys = input.apiKeys ?? [];
  if (!Array.isArray(apiKeys)) throw new ConveyorConfigError('apiKeys', 'must be a list of { role, key }');
  apiKeys.forEach((entry, i) => {
    if (!API_ROLES.includes(entry?.role as ApiRole)) {
      throw new ConveyorConfigError(`apiKeys[${i}].role`, `must be one of ${API_ROLES.join(', ')}`);
    }
    if (typeof entry.key !== 'string' || !KEY_PATTERN.test(entry.key)) {
      throw new ConveyorConfigError(`apiKeys[${i}].key`, 'must be a non-empty string of visible ASCII characters without spaces');
    }
  });

  const live = { ...conveyorHttpDefaults().live, ...(input.live ?? {}) };
  integer('live.maxBufferBytes', live.maxBufferBytes, 1024, 1024 * 1024 * 1024);
  integer('live.pingIntervalMs', live.pingIntervalMs, 100, 3_600_000);

  if (input.rateLimit === false) return { apiKeys, rateLimit: null, live };
  const rateLimit = { ...conveyorHttpDefaults().rateLimit, ...(input.rateLimit ?? {}) };
  integer('rateLimit.windowMs', rateLimit.windowMs, 1, 86_400_000);
  integer('rateLimit.max', rateLimit.max, 1, 1_000_000_000);
  integer('rateLimit.maxTracked', rateLimit.maxTracked, 1, 10_000_000);
  return { apiKeys, rateLimit, live };
}
