import { ManagerOutcome } from './forward-document.result';

/**
 * FORWARD_DOCUMENT's memory across attempts: the outcome of each document manager already dealt with,
 * by its index in the payload's `managers`.
 *
 * The engine keeps no partial result between attempts, only each attempt's error message in the job's
 * error history. So an attempt that ends early (a busy manager, a failing one) appends its progress to
 * its error message, and the next attempt reads it back from the history. Without it, a manager this job
 * sent the document to before a retry would answer "I have it" and be reported as `already-present`.
 * A message the engine cut short, or an attempt that ended without one (a timeout, a crash), simply
 * yields less progress: those managers are asked again, which is safe, only less precisely reported.
 */
export type ForwardProgress = Map<number, ManagerOutcome>;

const MARKER = '; progress: ';
/** The engine keeps the first 4,000 characters of an error; the summary and the progress share them. */
const MAX_SUMMARY = 800;
const MAX_PROGRESS = 3_000;
const OUTCOMES = new Set(['sent', 'already-present', 'rejected']);
const REASON_LOST = '(reason not kept across attempts)';

/** `summary` for people, then the progress (if any) for the next attempt. */
export function withProgress(summary: string, progress: ForwardProgress): string {
  // The marker appears once: a manager's answer quoted in the summary cannot forge it, and `;` never
  // occurs outside strings in JSON, so escaping it there keeps it out of the progress too.
  const head = summary.split(MARKER).join(';  progress: ').slice(0, MAX_SUMMARY);
  if (progress.size === 0) return head;
  let json = encode(progress, true);
  if (json.length > MAX_PROGRESS) json = encode(progress, false);
  return `${head}${MARKER}${json}`;
}

/** The latest progress recorded in an error history, for a payload of `managers` managers; empty when none. */
export function readProgress(history: ReadonlyArray<{ error?: unknown }>, managers: number): ForwardProgress {
  for (let i = history.length - 1; i >= 0; i--) {
    const text = history[i].error;
    if (typeof text !== 'string') continue;
    const at = text.lastIndexOf(MARKER);
    if (at < 0) continue;
    const progress = decode(text.slice(at + MARKER.length), managers);
    if (progress) return progress;
  }
  return new Map();
}

function encode(progress: ForwardProgress, withReasons: boolean): string {
  const entries = [...progress].map(([index, outcome]) => {
    if (outcome.outcome !== 'rejected' || withReasons) return [index, outcome];
    const { reason: _dropped, ...rest } = outcome;
    return [index, rest];
  });
  return JSON.stringify(Object.fromEntries(entries)).replace(/;/g, '\\u003b');
}

/** Reads progress back, trusting nothing: null when it is not what {@link encode} writes. */
function decode(json: string, managers: number): ForwardProgress | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const progress: ForwardProgress = new Map();
  for (const [key, value] of Object.entries(parsed)) {
    const index = Number(key);
    if (!/^\d+$/.test(key) || index >= managers || value === null || typeof value !== 'object') return null;
    const { outcome, status, reason } = value as Record<string, unknown>;
    if (typeof outcome !== 'string' || !OUTCOMES.has(outcome) || !Number.isInteger(status)) return null;
    if (outcome === 'rejected') {
      progress.set(index, { outcome, status: status as number, reason: typeof reason === 'string' ? reason : REASON_LOST });
    } else {
      progress.set(index, { outcome: outcome as 'sent' | 'already-present', status: status as number });
    }
  }
  return progress;
}
