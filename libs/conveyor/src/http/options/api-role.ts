/**
 * What an API key may do. `producer` submits jobs and reads them; `worker` may also claim jobs and report
 * their outcomes over HTTP (external workers usually enqueue follow-up jobs and read their own, so it
 * includes what a producer may do); `admin` may do everything, including steering jobs and queues.
 * A route that names no role needs `admin`, so a new route is closed by default.
 */
export type ApiRole = 'producer' | 'worker' | 'admin';

/** Every role, weakest first: each may do everything the ones before it may. */
export const API_ROLES: readonly ApiRole[] = ['producer', 'worker', 'admin'];

/** Whether a key with role `held` may use a route that requires `required`. */
export function roleAllows(held: ApiRole, required: ApiRole): boolean {
  return API_ROLES.indexOf(held) >= API_ROLES.indexOf(required);
}
