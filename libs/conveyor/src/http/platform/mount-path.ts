import { ConveyorConfigError } from '../../errors/conveyor-config.error';

/** Path segments of URL-safe characters, no empty, `.` or `..` segment. */
const SEGMENTS = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+(?:\/[A-Za-z0-9._~-]+)*$/;

/**
 * The `path` option without its surrounding slashes (`'/jobs-api/'` → `'jobs-api'`), `''` when there is
 * none. Refuses what would not make a plain path prefix, naming the field.
 */
export function normalizeMountPath(path: unknown): string {
  if (path === undefined || path === null) return '';
  if (typeof path !== 'string') throw new ConveyorConfigError('path', 'must be a string such as "jobs-api"');
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed !== '' && !SEGMENTS.test(trimmed)) {
    throw new ConveyorConfigError('path', 'must be URL path segments of letters, digits and . _ ~ - separated by /');
  }
  return trimmed;
}
