/**
 * What an API key may do. `producer` submits jobs and reads them; `admin` may do everything, including
 * steering jobs and queues. A route that names no role needs `admin`, so a new route is closed by default.
 */
export type ApiRole = 'producer' | 'admin';

/** Every role, weakest first. */
export const API_ROLES: readonly ApiRole[] = ['producer', 'admin'];

/** Whether a key with role `held` may use a route that requires `required`. */
export function roleAllows(held: ApiRole, required: ApiRole): boolean {
  return API_ROLES.indexOf(held) >= API_ROLES.indexOf(required);
}
