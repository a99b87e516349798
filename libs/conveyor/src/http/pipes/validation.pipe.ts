import { BadRequestException, Type, ValidationPipe } from '@nestjs/common';
import { ValidationError } from 'class-validator';
import { FieldProblem } from '../../errors/job-request.errors';
import { errorBody } from '../errors/error-body';

function flatten(errors: ValidationError[], prefix = ''): FieldProblem[] {
  return errors.flatMap((e) => [
    ...(e.constraints ? [{ field: `${prefix}${e.property}`, problems: Object.values(e.constraints) }] : []),
    ...flatten(e.children ?? [], `${prefix}${e.property}.`),
  ]);
}

/**
 * ValidationPipe reads a missing value as `{}`, and a JSON body of `null` with it: for `POST /jobs/retry`, whose
 * fields are all optional filters, `null` would retry every DEAD job. A missing body is still `{}`; `null` is a
 * body that is not an object, refused as `[]`, `3` and `"x"` are.
 */
class NullRefusingValidationPipe extends ValidationPipe {
  protected override toEmptyIfNil<T = unknown, R = T>(value: T, metatype: Type<unknown> | object): R | object | string {
    if (value === null) {
      throw new BadRequestException(errorBody(400, 'Invalid request: body', [{ field: 'body', problems: ['must be a JSON object'] }]));
    }
    return super.toEmptyIfNil<T, R>(value, metatype);
  }
}

/**
 * Validation of query strings and request bodies: unknown fields refused, every problem named in a 400's `details`.
 *
 * One style for every body: its rules are class-validator decorators on a DTO in ./dto (the same classes
 * describe it to OpenAPI), applied by this pipe. Three bodies carry caller JSON that must be stored exactly as sent,
 * which class-transformer's copy would not do, so they apply their DTO's rules with class-validator on a copy
 * of the known fields instead: a submission (the engine's JobRequestValidator, with SubmitJobEnvelope's rules,
 * because in-code `enqueue` needs the same check and the same field names), a completion and a progress report
 * (readJsonCarryingBody, with CompleteJobDto's and ReportProgressDto's).
 */
export function conveyorValidationPipe(): ValidationPipe {
  return new NullRefusingValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      return new BadRequestException(errorBody(400, `Invalid request: ${details.map((d) => d.field).join(', ')}`, details));
    },
  });
}
