import { ReportProgressDto } from '../dto/report-progress.dto';
import { readJsonCarryingBody } from './json-carrying-body.reader';

/**
 * Reads the body of `POST /jobs/:id/progress`: `data` is the worker's own JSON, kept exactly as sent (its keys
 * `__proto__` and `constructor` included); its size and storability are readJobProgress's to check.
 */
export function readReportProgressBody(body: unknown): ReportProgressDto {
  return readJsonCarryingBody(body, ReportProgressDto, ['leaseToken', 'percent', 'data']);
}
