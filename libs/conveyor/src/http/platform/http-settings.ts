import { integer } from '../../config/option-rules';
import { ConveyorConfigError } from '../../errors/conveyor-config.error';

/**
 * The bounds of `bodyLimitBytes`. Below a kilobyte hardly a submission fits. A body is decoded into one string
 * before it is parsed, and V8's strings stop at 2^29 - 24 characters: a longer body throws inside the body parser,
 * out of every handler, and ends the process. 256 MiB stays well inside that, and no jsonb value PostgreSQL
 * stores is larger.
 */
export const MIN_BODY_LIMIT_BYTES = 1024;
export const MAX_BODY_LIMIT_BYTES = 256 * 1024 * 1024;

/** HTTP settings of the app that hosts the API. */
export interface HttpSettings {
  /** Largest accepted body, in bytes: an integer from 1024 to 268435456 (256 MiB). */
  bodyLimitBytes: number;
  /**
   * Serve the OpenAPI document (Swagger UI at /docs, JSON at /docs-json, under the global prefix and the
   * module's `path`); default true.
   */
  apiDocs?: boolean;
}

/** Every setting's name; the compiler checks the list against HttpSettings, both ways. */
const SETTING_NAMES = Object.keys({ bodyLimitBytes: true, apiDocs: true } satisfies Record<keyof HttpSettings, true>);

/**
 * Throws ConveyorConfigError naming the first bad setting. A body limit that is not a number in range would reach
 * the body parser as no limit at all (NaN compares false with every length), and a misspelt setting would be ignored.
 */
export function checkHttpSettings(settings: HttpSettings): void {
  if (settings === null || typeof settings !== 'object') {
    throw new ConveyorConfigError('settings', 'must be an object such as { bodyLimitBytes: 1048576 }');
  }
  const unknown = Object.keys(settings).find((key) => !SETTING_NAMES.includes(key));
  if (unknown) throw new ConveyorConfigError(unknown, `is not a setting of configureHttp (known: ${SETTING_NAMES.join(', ')})`);
  integer('bodyLimitBytes', settings.bodyLimitBytes, MIN_BODY_LIMIT_BYTES, MAX_BODY_LIMIT_BYTES);
  if (settings.apiDocs !== undefined && typeof settings.apiDocs !== 'boolean') {
    throw new ConveyorConfigError('apiDocs', `must be true or false, got ${String(settings.apiDocs)}`);
  }
}
