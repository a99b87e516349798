import { LiveJobEvent } from '../live/live-event';

/** Which job events a subscriber wants: every given field must match (none given: every event). */
export interface LiveFilter {
  queue?: string;
  /** The job type whatever the case, as `GET /jobs` searches it. */
  type?: string;
  status?: string;
  /** One job (a per-job stream). */
  id?: string;
}

/** Whether `event` passes `filter`. */
export function matchesFilter(filter: LiveFilter, event: LiveJobEvent): boolean {
  return (
    (filter.id === undefined || filter.id === event.id) &&
    (filter.queue === undefined || filter.queue === event.queue) &&
    (filter.type === undefined || sameIgnoringCase(filter.type, event.type)) &&
    (filter.status === undefined || filter.status === event.status)
  );
}

function sameIgnoringCase(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase();
}
