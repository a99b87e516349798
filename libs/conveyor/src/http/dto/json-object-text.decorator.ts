import { ValidateBy, ValidationOptions } from 'class-validator';

/** Whether `value` is text holding a JSON object (not an array, string or number). */
export function isJsonObjectText(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** A query parameter that must hold a JSON object, as text (the caller parses it). */
export function IsJsonObjectText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isJsonObjectText',
      validator: {
        validate: isJsonObjectText,
        defaultMessage: (args) => `${args?.property ?? 'value'} must be a JSON object, e.g. {"customerId":42}`,
      },
    },
    options,
  );
}
