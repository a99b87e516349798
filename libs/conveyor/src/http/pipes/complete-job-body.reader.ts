import { findUnstorableJson } from '../../job/json-safety';
import { CompleteJobDto } from '../dto/complete-job.dto';
import { readJsonCarryingBody } from './json-carrying-body.reader';

/** Reads the body of `POST /jobs/:id/complete`: `result` is any JSON, stored exactly as sent (null when omitted). */
export function readCompleteJobBody(body: unknown): { leaseToken: string; result: unknown } {
  const dto = readJsonCarryingBody(body, CompleteJobDto, ['leaseToken', 'result'], ({ result }) => {
    const unstorable = findUnstorableJson(result ?? null, 'result');
    return unstorable ? [{ field: unstorable.field, problems: [unstorable.problem] }] : [];
  });
  return { leaseToken: dto.leaseToken, result: dto.result ?? null };
}
