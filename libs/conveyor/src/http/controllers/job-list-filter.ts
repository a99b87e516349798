import { JobValidationError } from '../../errors/job-request.errors';
import { JobListFilter } from '../../storage/statements/job-list.sql';
import { ListJobsQueryDto } from '../dto/list-jobs-query.dto';

/** Jobs per page when the query does not say. */
export const DEFAULT_PAGE = 50;

/**
 * The job list's filter from a validated `GET /jobs` query: times as dates, the payload filter re-serialised (the
 * DTO checked it is a JSON object), the page size defaulted. A range whose end is before its start is a 400 naming
 * `createdTo`.
 */
export function toJobListFilter(query: ListJobsQueryDto): Omit<JobListFilter, 'beforeId'> & { cursor?: string } {
  const createdFrom = query.createdFrom === undefined ? undefined : new Date(query.createdFrom);
  const createdTo = query.createdTo === undefined ? undefined : new Date(query.createdTo);
  const bad = [
    createdFrom && Number.isNaN(createdFrom.getTime()) ? 'createdFrom' : null,
    createdTo && Number.isNaN(createdTo.getTime()) ? 'createdTo' : null,
  ];
  const problems = bad.filter((f): f is string => f !== null).map((field) => ({ field, problems: [`${field} is not a real date-time`] }));
  if (problems.length === 0 && createdFrom && createdTo && createdTo < createdFrom) {
    problems.push({ field: 'createdTo', problems: ['createdTo must not be before createdFrom'] });
  }
  if (problems.length > 0) throw new JobValidationError(`Invalid request: ${problems.map((p) => p.field).join(', ')}`, problems);
  return {
    ...query,
    payload: query.payload === undefined ? undefined : JSON.stringify(JSON.parse(query.payload)),
    createdFrom,
    createdTo,
    limit: query.limit ?? DEFAULT_PAGE,
  };
}
