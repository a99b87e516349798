import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsInt } from 'class-validator';

const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * An integer query parameter, written in plain decimal digits. `@Type(() => Number)` would hand the text to
 * `Number()`, which also reads `0x10`, `0b10000`, `1e1`, ` 16` and `+16` as numbers, so a typo or a probe
 * would pass as a valid page size. Anything but digits stays text, and IsInt names the field. Combine with
 * Min and Max for the range.
 */
export function QueryInt(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && DECIMAL_DIGITS.test(value) ? Number(value) : value)),
    IsInt({ message: ({ property }) => `${property} must be an integer written in decimal digits` }),
  );
}
