import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBase64,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateIf,
  ValidationOptions,
} from 'class-validator';

/** Most document managers one job sends to. */
export const MAX_MANAGERS = 20;
/** Largest document: 512 KiB of bytes (as base64), or 512 Ki characters of text. */
export const MAX_CONTENT_BYTES = 512 * 1024;

/**
 * A document id goes into a URL path (`/documents/{id}`): letters, digits and `._:-`, starting with a letter
 * or digit, so it can be neither `.` nor `..` (which a URL would resolve as a path step).
 */
const DOCUMENT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
/** A file name without path separators or control characters, and not `.` or `..`. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be refused
const FILE_NAME = /^(?!\.\.?$)[^/\\\x00-\x1f\x7f]+$/;
/** type/subtype with optional parameters, as a Content-Type header can carry it. */
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+(?:\s*;\s*[\w.+-]+=(?:[\w.+-]+|"[^"\\\r\n]*"))*$/;

/** Valid when the property is absent or `other` is. */
function IsNotSentWith(other: string, validationOptions?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isNotSentWith',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `give either ${other} or $property, not both`, ...validationOptions },
      validator: {
        validate: (value: unknown, args) => value === undefined || (args?.object as Record<string, unknown>)[other] === undefined,
      },
    });
}

/** Payload of FORWARD_DOCUMENT: one document, and the document managers that should all end up with it. */
export class ForwardDocumentPayload {
  /** The document's id in every manager (`GET {manager}/documents/{documentId}`). */
  @IsString()
  @Length(1, 200)
  @Matches(DOCUMENT_ID, { message: '$property may hold letters, digits and ._:- and must start with a letter or digit' })
  documentId: string;

  /** The document as text (sent UTF-8 encoded); required unless contentBase64 is given. */
  @ValidateIf((payload: ForwardDocumentPayload) => payload.contentBase64 === undefined)
  @IsString({ message: '$property must be a string (or give contentBase64 instead)' })
  @Length(1, MAX_CONTENT_BYTES)
  content?: string;

  /** The document's bytes, base64-encoded. */
  @IsOptional()
  @IsString()
  @IsBase64()
  @Length(1, Math.ceil(MAX_CONTENT_BYTES / 3) * 4)
  @IsNotSentWith('content')
  contentBase64?: string;

  @IsOptional()
  @IsString()
  @Length(1, 255)
  @Matches(FILE_NAME, { message: '$property must be a file name without path separators or control characters' })
  fileName?: string;

  /** Media type of the document; default text/plain for content, application/octet-stream for contentBase64. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  @Matches(MEDIA_TYPE, { message: '$property must be a media type such as application/pdf' })
  contentType?: string;

  /** Base URLs of the document managers (http or https, no user:password part), each at most once. */
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_MANAGERS)
  @ArrayUnique()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true, disallow_auth: true }, { each: true })
  @MaxLength(2048, { each: true })
  managers: string[];
}
