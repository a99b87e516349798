// What the key in use may do, so that the page offers only the buttons it may press.
//
// Every action the dashboard offers (cancel, retry, retry all matching, pause, resume, trigger) is an admin route
// (`@ApiAccess('admin')` in http/controllers/jobs.controller.ts, queues.controller.ts and schedules.controller.ts);
// a producer or worker key may only read. `GET /access` names the role of the key in use (401 for a missing or wrong key).

import { api, ApiError, apiKey } from './api.js';

/** The last question asked: for which key, and its answer (a promise, so that renders share one request). */
let asked = { key: null, answer: null };

async function ask() {
  try {
    const { role } = await api('GET', '/access');
    return role === 'admin' ? 'admin' : 'read-only';
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return err.keySent ? 'wrong-key' : 'no-key';
    return 'unknown';
  }
}

/**
 * What the key in use may do, asked once per key:
 * - `admin`: everything the page offers (also when the API runs without keys);
 * - `read-only`: a producer or worker key: it reads, and is offered no action;
 * - `wrong-key`: the service does not know the key;
 * - `no-key`: the service needs a key and none is set;
 * - `unknown`: the question went unanswered (rate limit, network); asked again next time.
 */
export async function keyAccess() {
  const key = apiKey();
  if (asked.key !== key || !asked.answer) asked = { key, answer: ask() };
  const { answer } = asked;
  const access = await answer;
  if (access === 'unknown' && asked.answer === answer) asked = { key: null, answer: null };
  return access;
}
