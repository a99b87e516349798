// What the key in use may do, so that the page offers only the buttons it may press.
//
// Every action the dashboard offers (cancel, retry, retry all matching, pause, resume) is an admin route
// (`@ApiAccess('admin')` in http/controllers/jobs.controller.ts and queues.controller.ts); a producer or
// worker key may only read. The API has no "who am I" route, so the page asks its guard: the guard answers
// 401 (no key, or a wrong one) or 403 (a weaker role) before any pipe or handler runs. The question is an
// admin route whose target can never exist — `POST /jobs/<not a UUID>/cancel` — so a key that passes the
// guard gets a 400 from the id pipe, and nothing changes whatever the key.

import { api, ApiError, apiKey } from './api.js';

const PROBE = '/jobs/access-check/cancel';

/** The last question asked: for which key, and its answer (a promise, so that renders share one request). */
let asked = { key: null, answer: null };

async function ask() {
  try {
    await api('POST', PROBE);
    return 'admin';
  } catch (err) {
    if (!(err instanceof ApiError) || err.status === 0 || err.status === 429 || err.status >= 500) return 'unknown';
    if (err.status === 401) return err.keySent ? 'wrong-key' : 'no-key';
    if (err.status === 403) return 'read-only';
    return 'admin';
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
