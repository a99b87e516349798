import { MAX_ANNOUNCED_DUE_TIMES, READY_NOTICE_PREFIX } from '../statements/due-notice.codec';
import { NOTIFIED_DUE_TIMES_LIMIT, notifyDueTimesMigration } from './0005-notify-due-times.migration';

/** An applied migration never changes: the notice's form the code reads is the one this migration wrote. */
describe('migration 0005 and the due notice the code reads', () => {
  const sql = notifyDueTimesMigration.up({
    schema: '"s"',
    jobs: '"s".conveyor_jobs',
    queues: '"s".conveyor_queues',
    leadership: '"s".conveyor_leadership',
    liveWatch: '"s".conveyor_live_watch',
    channelLiteral: "'c'",
  });

  it('lists as many later due times as the code takes from an insert (a different number takes a new migration)', () => {
    expect(NOTIFIED_DUE_TIMES_LIMIT).toBe(MAX_ANNOUNCED_DUE_TIMES);
    expect(sql).toContain(`LIMIT ${MAX_ANNOUNCED_DUE_TIMES}`);
  });

  it('writes the ready prefix the codec reads', () => {
    expect(sql).toContain(`'${READY_NOTICE_PREFIX}' ||`);
  });
});
