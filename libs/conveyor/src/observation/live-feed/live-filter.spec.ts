import { LiveJobEvent } from '../live/live-event';
import { matchesFilter } from './live-filter';

const event: LiveJobEvent = { id: 'j1', status: 'RUNNING', queue: 'emails', type: 'SEND_EMAIL', updatedAt: '', progress: null };

describe('matchesFilter', () => {
  it('passes an event every given field matches, the type whatever its case, as GET /jobs searches it', () => {
    expect(matchesFilter({}, event)).toBe(true);
    expect(matchesFilter({ queue: 'emails', type: 'send_email', status: 'RUNNING' }, event)).toBe(true);
    expect(matchesFilter({ type: 'Send_Email' }, event)).toBe(true);
  });

  it('stops an event any given field does not match; queue and status exactly', () => {
    expect(matchesFilter({ type: 'SEND_WEBHOOK' }, event)).toBe(false);
    expect(matchesFilter({ queue: 'Emails' }, event)).toBe(false);
    expect(matchesFilter({ status: 'running' }, event)).toBe(false);
    expect(matchesFilter({ id: 'j2' }, event)).toBe(false);
  });
});
