import { validateSync } from 'class-validator';
import { FieldProblem, JobValidationError } from '../../errors/job-request.errors';

/**
 * Reads a body that carries caller JSON to be stored exactly as sent (a completion's `result`, a progress report's
 * `data`), without the ValidationPipe: the pipe rebuilds bodies through class-transformer and strips keys such as
 * `__proto__` and `constructor` from them, at any depth. The DTO's class-validator rules are applied to an instance
 * holding the body's own values, unknown fields are refused, and the values are returned as they came.
 * `moreProblems` adds the checks the DTO cannot express. Every problem is one 400 naming its field.
 */
export function readJsonCarryingBody<T extends object>(
  body: unknown,
  Dto: new () => T,
  fields: ReadonlyArray<keyof T & string>,
  moreProblems: (dto: T) => FieldProblem[] = () => [],
): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new JobValidationError('Invalid request: body', [{ field: 'body', problems: ['must be a JSON object'] }]);
  }
  const raw = body as Record<string, unknown>;
  const known: readonly string[] = fields;
  const problems: FieldProblem[] = Object.keys(raw)
    .filter((k) => !known.includes(k))
    .map((field) => ({ field, problems: [`property ${field} should not exist`] }));
  const dto = new Dto();
  for (const field of fields) {
    if (Object.prototype.hasOwnProperty.call(raw, field)) (dto as Record<string, unknown>)[field] = raw[field];
  }
  for (const e of validateSync(dto, { forbidUnknownValues: false })) {
    problems.push({ field: e.property, problems: Object.values(e.constraints ?? {}) });
  }
  problems.push(...moreProblems(dto));
  if (problems.length > 0) throw new JobValidationError(`Invalid request: ${problems.map((p) => p.field).join(', ')}`, problems);
  return dto;
}
