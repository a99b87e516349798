import { RequestInit } from 'undici';
import { DocumentForwardError } from './document-forward.error';
import { fetchWithin } from './fetch-within';
import { ManagerOutcome } from './forward-document.result';
import { readBodyStart } from './read-body-start';
import { parseRetryAfter } from './retry-after';

/** How one attempt left one document manager: an outcome, "busy until", or a failure to retry. */
export type ManagerStep =
  { kind: 'done'; outcome: ManagerOutcome } | { kind: 'busy'; until: Date; note: string } | { kind: 'failed'; reason: string };

/** The document as every manager receives it. */
export interface OutgoingDocument {
  id: string;
  /** The JSON body of `POST {manager}/documents`. */
  body: string;
}

/** What every request of one attempt shares. */
export interface ManagerCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Sent as Idempotency-Key with the document, so a manager can drop a repeat. */
  idempotencyKey: string;
  /** ALLOW_PRIVATE_NETWORKS (see fetchWithin). */
  allowPrivateNetworks: boolean;
}

/** An HTTP answer, with as much of its body as a reason needs. */
interface Answer {
  status: number;
  text: string;
  retryAfter: string | null;
}

/** Longest quote of a manager's answer in an outcome or error. */
const MAX_REASON = 200;
/** 408: the manager gave up waiting for the request, which RFC 9110 lets the client repeat. */
const REQUEST_TIMEOUT = 408;

/**
 * Brings one document manager to have the document. `GET {manager}/documents/{id}`: 2xx means it has it
 * (`already-present`), 404 that it does not; then `POST {manager}/documents` sends it (2xx `sent`; 409 means
 * someone else just did: `already-present`). On either request, 429/503 with Retry-After is `busy`; a 3xx
 * (not followed: the payload named the manager) or another 4xx is `rejected`; 5xx, 408, 429/503 without
 * Retry-After, timeouts and network errors are `failed`. Errors name the origin only: paths and queries of
 * manager URLs may carry secrets. An abort of the job's signal is thrown, not reported.
 */
export async function forwardToManager(manager: string, document: OutgoingDocument, options: ManagerCallOptions): Promise<ManagerStep> {
  const collection = new URL(manager);
  collection.pathname = `${collection.pathname.replace(/\/+$/, '')}/documents`;
  const item = new URL(collection);
  item.pathname = `${collection.pathname}/${encodeURIComponent(document.id)}`;

  const checkTarget = `GET ${collection.origin}`;
  const check = await ask(item, { method: 'GET' }, checkTarget, options);
  if ('kind' in check) return check;
  if (check.status >= 200 && check.status < 300) return { kind: 'done', outcome: { outcome: 'already-present', status: check.status } };
  if (check.status !== 404) return otherAnswer(check, checkTarget);

  const sendTarget = `POST ${collection.origin}`;
  const headers = { 'content-type': 'application/json', 'idempotency-key': options.idempotencyKey };
  const send = await ask(collection, { method: 'POST', headers, body: document.body }, sendTarget, options);
  if ('kind' in send) return send;
  if (send.status >= 200 && send.status < 300) return { kind: 'done', outcome: { outcome: 'sent', status: send.status } };
  if (send.status === 409) return { kind: 'done', outcome: { outcome: 'already-present', status: send.status } };
  return otherAnswer(send, sendTarget);
}

async function ask(url: URL, init: RequestInit, target: string, options: ManagerCallOptions): Promise<Answer | ManagerStep> {
  try {
    const response = await fetchWithin(
      url,
      { ...init, redirect: 'manual' },
      {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        target,
        error: DocumentForwardError,
        allowPrivateNetworks: options.allowPrivateNetworks,
      },
    );
    const text = (await readBodyStart(response, MAX_REASON)).trim();
    return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
  } catch (err) {
    if (err instanceof DocumentForwardError) return { kind: 'failed', reason: err.message };
    throw err;
  }
}

/** Any answer but the expected ones. */
function otherAnswer(answer: Answer, target: string): ManagerStep {
  const { status, text } = answer;
  if (status === 429 || status === 503) {
    const until = parseRetryAfter(answer.retryAfter);
    if (until) return { kind: 'busy', until, note: `${target} answered ${status}` };
  }
  if (status >= 300 && status < 400)
    return { kind: 'done', outcome: { outcome: 'rejected', status, reason: 'redirects are not followed' } };
  if (status >= 400 && status < 500 && status !== 429 && status !== REQUEST_TIMEOUT) {
    return { kind: 'done', outcome: { outcome: 'rejected', status, reason: text || `${target} answered ${status}` } };
  }
  return { kind: 'failed', reason: `${target} answered ${status}${text ? `: ${text}` : ''}` };
}
