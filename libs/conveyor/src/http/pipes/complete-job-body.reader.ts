import { validateSync } from 'class-validator';
import { FieldProblem, JobValidationError } from '../../errors/job-request.errors';
import { findUnstorableJson } from '../../job/json-safety';
import { CompleteJobDto } from '../dto/complete-job.dto';

const FIELDS = ['leaseToken', 'result'];

/**
 * Reads the body of `POST /jobs/:id/complete` without the ValidationPipe: `result` is arbitrary JSON to be
 * stored exactly as sent, and the pipe rebuilds bodies through class-transformer and strips keys such as
 * `__proto__` and `constructor` from them. Only `leaseToken` goes through class-validator.
 */
export function readCompleteJobBody(body: unknown): { leaseToken: string; result: unknown } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new JobValidationError('Invalid request: body', [{ field: 'body', problems: ['must be a JSON object'] }]);
  }
  const raw = body as Record<string, unknown>;
  const problems: FieldProblem[] = Object.keys(raw)
    .filter((k) => !FIELDS.includes(k))
    .map((field) => ({ field, problems: [`property ${field} should not exist`] }));
  const dto = new CompleteJobDto();
  dto.leaseToken = raw.leaseToken as string;
  for (const e of validateSync(dto, { forbidUnknownValues: false })) {
    problems.push({ field: e.property, problems: Object.values(e.constraints ?? {}) });
  }
  const result = Object.prototype.hasOwnProperty.call(raw, 'result') ? raw.result : null;
  const unstorable = findUnstorableJson(result, 'result');
  if (unstorable) problems.push({ field: unstorable.field, problems: [unstorable.problem] });
  if (problems.length > 0) throw new JobValidationError(`Invalid request: ${problems.map((p) => p.field).join(', ')}`, problems);
  return { leaseToken: dto.leaseToken, result };
}
