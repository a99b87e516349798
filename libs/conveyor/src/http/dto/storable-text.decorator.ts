import { ValidateBy, ValidationOptions } from 'class-validator';
import { hasLoneSurrogate } from '../../job/json-safety';

/** Why `value` is not text PostgreSQL stores as sent, or null when it is (or is no string: other rules judge that). */
export function storableTextProblem(value: unknown, property = 'value'): string | null {
  if (typeof value !== 'string') return null;
  if (value.includes('\u0000')) return `${property} must not contain NUL characters`;
  if (hasLoneSurrogate(value)) return `${property} must not contain an unpaired UTF-16 surrogate`;
  return null;
}

/**
 * Text bound for a PostgreSQL text parameter. A NUL character fails the statement; a lone surrogate (JSON's
 * `"\ud800"`) cannot be encoded as UTF-8, so pg would send U+FFFD in its place and the statement would match
 * or store a character the client never sent: a filter would pick other jobs than those asked for.
 */
export function IsStorableText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStorableText',
      validator: {
        validate: (value) => storableTextProblem(value) === null,
        defaultMessage: (args) => storableTextProblem(args?.value, args?.property) ?? `${args?.property ?? 'value'} is not storable text`,
      },
    },
    options,
  );
}
