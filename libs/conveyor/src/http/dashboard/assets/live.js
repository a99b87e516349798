// Live events (GET /events, GET /jobs/:id/events) for the views. Read with fetch and a stream reader rather than
// EventSource, which cannot send the `Authorization` header: the API key stays out of URLs. A dropped stream is
// opened again after a pause, with `Last-Event-ID`, so the server sends what changed meanwhile.

import { apiKey, apiUrl } from './api.js';

const RETRY_MS = [1000, 2000, 5000, 10000];

/**
 * Follows `path` until `stop()` is called: `onEvent(job)` for each job event (its data: id, status, queue, type,
 * updatedAt, progress), `onState(connected)` when the stream opens or drops. A stream the server refuses (401, 403,
 * 404 from an older server, 503) is not retried: the views fall back to their refresh timer.
 */
export function followLive(path, { onEvent, onState }) {
  const aborter = new AbortController();
  let lastEventId = null;
  let failures = 0;
  let stopped = false;

  async function connect() {
    const headers = { accept: 'text/event-stream' };
    const key = apiKey();
    if (key) headers.authorization = `Bearer ${key}`;
    if (lastEventId) headers['last-event-id'] = lastEventId;
    let res;
    try {
      res = await fetch(apiUrl(path), { headers, signal: aborter.signal });
    } catch {
      return retry();
    }
    if (!res.ok || !res.body) {
      onState(false);
      return res.status >= 500 && res.status !== 503 ? retry() : undefined;
    }
    failures = 0;
    onState(true);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          handle(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Dropped (or stopped): see below.
    }
    retry();
  }

  function handle(block) {
    let event = 'message';
    let data = '';
    let id = null;
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
      else if (line.startsWith('id: ')) id = line.slice(4);
    }
    if (id) lastEventId = id;
    if (event !== 'job' || !data) return;
    try {
      onEvent(JSON.parse(data));
    } catch {
      // Not ours to show.
    }
  }

  function retry() {
    if (stopped) return;
    onState(false);
    setTimeout(() => !stopped && connect(), RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
  }

  connect();
  return {
    path,
    stop() {
      stopped = true;
      aborter.abort();
    },
  };
}
