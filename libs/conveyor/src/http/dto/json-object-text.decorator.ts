import { ValidateBy, ValidationOptions } from 'class-validator';
import { findUnstorableJson } from '../../job/json-safety';

const NOT_AN_OBJECT = 'must be a JSON object, e.g. {"customerId":42}';

/**
 * Why `value` is not text holding a JSON object PostgreSQL can read (not an array, string or number; no NUL
 * character or lone surrogate, which jsonb refuses), or null when it is. `property` names the value in the answer.
 */
export function jsonObjectTextProblem(value: unknown, property = 'value'): string | null {
  if (typeof value !== 'string') return `${property} ${NOT_AN_OBJECT}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return `${property} ${NOT_AN_OBJECT}`;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return `${property} ${NOT_AN_OBJECT}`;
  const unstorable = findUnstorableJson(parsed, property);
  return unstorable ? `${unstorable.field} ${unstorable.problem}` : null;
}

/** Whether `value` is text holding a JSON object PostgreSQL can read. */
export function isJsonObjectText(value: unknown): boolean {
  return jsonObjectTextProblem(value) === null;
}

/** A query parameter that must hold a JSON object, as text (the caller parses it). */
export function IsJsonObjectText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isJsonObjectText',
      validator: {
        validate: isJsonObjectText,
        defaultMessage: (args) => jsonObjectTextProblem(args?.value, args?.property) ?? `${args?.property ?? 'value'} ${NOT_AN_OBJECT}`,
      },
    },
    options,
  );
}
