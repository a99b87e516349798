import { JobStatus } from '../job/job-status';
import { MAX_ANNOUNCED_DUE_TIMES } from '../storage/statements/due-notice.codec';
import { JobRow } from '../storage/statements/job-row.mapper';
import { committedInsert } from './insert-rows';

const row = (status: JobStatus, runAt: number): JobRow => ({ status, run_at: new Date(runAt) }) as JobRow;

describe('committedInsert', () => {
  it('names the insert by its earliest run_at, and lists the other due times of its scheduled rows once each', () => {
    const rows = [
      row(JobStatus.SCHEDULED, 3_000),
      row(JobStatus.PENDING, 1_000),
      row(JobStatus.SCHEDULED, 2_000),
      row(JobStatus.SCHEDULED, 3_000),
      row(JobStatus.PENDING, 1_500),
    ];
    expect(committedInsert(7, rows)).toEqual({ backendPid: 7, earliestRunAt: 1_000, dueAtInsert: true, laterRunAts: [2_000, 3_000] });
  });

  it('leaves the earliest out of the later times when it is scheduled itself', () => {
    const rows = [row(JobStatus.SCHEDULED, 5_000), row(JobStatus.SCHEDULED, 4_000), row(JobStatus.SCHEDULED, 4_000)];
    expect(committedInsert(7, rows)).toEqual({ backendPid: 7, earliestRunAt: 4_000, dueAtInsert: false, laterRunAts: [5_000] });
  });

  it('lists the earliest MAX_ANNOUNCED_DUE_TIMES later times, as the NOTIFY does', () => {
    const rows = Array.from({ length: MAX_ANNOUNCED_DUE_TIMES + 10 }, (_, i) => row(JobStatus.SCHEDULED, 10_000 - i));
    const { earliestRunAt, laterRunAts } = committedInsert(7, rows)!;
    expect(laterRunAts).toHaveLength(MAX_ANNOUNCED_DUE_TIMES);
    expect(laterRunAts[0]).toBe(earliestRunAt + 1);
    expect(laterRunAts).toEqual([...laterRunAts].sort((a, b) => a - b));
  });

  it('is undefined for an insert of no rows', () => {
    expect(committedInsert(7, [])).toBeUndefined();
  });
});
