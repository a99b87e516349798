import { IsObject, IsOptional, IsUrl, MaxLength, registerDecorator, ValidationOptions } from 'class-validator';

/** Every value of the object is a string (HTTP header values). */
function IsStringRecord(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isStringRecord',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must map header names to string values', ...options },
      validator: {
        validate: (value: unknown) =>
          value !== null &&
          typeof value === 'object' &&
          !Array.isArray(value) &&
          Object.entries(value).every(([k, v]) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) && typeof v === 'string' && !/[\r\n\0]/.test(v)),
      },
    });
}

/** Payload of SEND_WEBHOOK. */
export class SendWebhookPayload {
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true })
  @MaxLength(2048)
  url: string;

  /** Sent as JSON; any JSON value. */
  @IsOptional()
  body?: unknown;

  @IsOptional()
  @IsObject()
  @IsStringRecord()
  headers?: Record<string, string>;
}
