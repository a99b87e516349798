// Calls to Conveyor's REST API from the page. The API key the user pasted lives in sessionStorage (this
// tab only, gone when it closes) and goes out as `Authorization: Bearer`; it is never put in a URL.

const KEY_STORAGE = 'conveyor.apiKey';

/**
 * Where the API is: one level above this script (`<base>/dashboard/api.js` → `<base>/`), whatever global
 * prefix, module path or proxy prefix `<base>` is. The views name routes as in the API docs (`/jobs`).
 */
const API_ROOT = new URL('../', import.meta.url);

/**
 * An error answer of the API, with its status and `{ message, details }` body. `keySent` says whether the
 * request carried a key: a 401 then means the key is wrong, not that one is missing.
 */
export class ApiError extends Error {
  constructor(status, message, body, keySent = false) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.keySent = keySent;
  }
}

export function apiKey() {
  return sessionStorage.getItem(KEY_STORAGE) ?? '';
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** The URL of an API route (`/jobs`), below API_ROOT. */
export function apiUrl(path) {
  return new URL(path.replace(/^\//, ''), API_ROOT);
}

/** One request; resolves to the parsed JSON body (null for 204), rejects with an ApiError. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const key = apiKey();
  if (key) headers.authorization = `Bearer ${key}`;
  let res;
  try {
    res = await fetch(apiUrl(path), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, `The service did not answer (${err.message}).`, null, Boolean(key));
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) throw new ApiError(res.status, data?.message ?? `${res.status} ${res.statusText}`, data, Boolean(key));
  return data;
}

/** A query string from the set fields of an object. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** What to tell the user about a failed call. */
export function explain(err) {
  if (!(err instanceof ApiError)) return String(err?.message ?? err);
  if (err.status === 401 && err.keySent)
    return 'The API key in use is wrong: the service does not know it. Paste a valid key in the top bar.';
  if (err.status === 401) return 'This needs an API key: paste one in the top bar.';
  if (err.status === 403) return `This key may not do that: ${err.message}`;
  if (err.status === 429) return 'Too many requests for this key; try again shortly.';
  return err.message;
}
