import { registerDecorator, ValidationOptions } from 'class-validator';

/**
 * Characters PDF's standard fonts can show (WinAnsiEncoding): printable ASCII, Latin-1 and the
 * typographic extras of Windows-1252 (euro sign, curly quotes, dashes, bullet, ...). pdfkit draws
 * anything else as garbage without complaint, so a payload with, say, CJK text is refused at submission
 * instead of becoming a PDF nobody can read. Embedding a Unicode font would lift this limit.
 */
const PDF_TEXT_CHARS = [
  '\\x20-\\x7e\\xa0-\\xff', // printable ASCII and Latin-1
  '\\u0152\\u0153\\u0160\\u0161\\u0178\\u017d\\u017e\\u0192\\u02c6\\u02dc', // letters and accents of Windows-1252
  '\\u2013\\u2014\\u2018-\\u201a\\u201c-\\u201e\\u2020-\\u2022\\u2026\\u2030\\u2039\\u203a\\u20ac\\u2122', // its punctuation and signs
].join('');
const ONE_LINE = new RegExp(`^[${PDF_TEXT_CHARS}]*$`);
const MULTI_LINE = new RegExp(`^[\\r\\n${PDF_TEXT_CHARS}]*$`);

/** Text the standard PDF fonts can show; with `lines`, line breaks are allowed too. Non-strings are left to @IsString. */
export function IsPdfText(options: { lines?: boolean } = {}, validationOptions?: ValidationOptions): PropertyDecorator {
  const pattern = options.lines ? MULTI_LINE : ONE_LINE;
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPdfText',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `$property must be ${options.lines ? 'text' : 'one line of text'} in Latin-1 or Windows-1252 (the standard PDF fonts show nothing else)`,
        ...validationOptions,
      },
      validator: { validate: (value: unknown) => typeof value !== 'string' || pattern.test(value) },
    });
}
