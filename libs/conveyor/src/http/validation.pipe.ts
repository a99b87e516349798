import { BadRequestException, ValidationPipe } from '@nestjs/common';
import { ValidationError } from 'class-validator';
import { FieldProblem } from '../errors/job-request.errors';
import { errorBody } from './error-body';

function flatten(errors: ValidationError[], prefix = ''): FieldProblem[] {
  return errors.flatMap((e) => [
    ...(e.constraints ? [{ field: `${prefix}${e.property}`, problems: Object.values(e.constraints) }] : []),
    ...flatten(e.children ?? [], `${prefix}${e.property}.`),
  ]);
}

/** Validation of query strings and small bodies: unknown fields refused, every problem named. */
export function conveyorValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      return new BadRequestException(errorBody(400, `Invalid request: ${details.map((d) => d.field).join(', ')}`, details));
    },
  });
}
