import { ArrayMaxSize, IsArray, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { IsPdfText } from './pdf-text.validator';

/** Most paragraphs, and characters per paragraph: at most about a million characters, a few hundred pages. */
export const MAX_PARAGRAPHS = 100;
export const MAX_PARAGRAPH_LENGTH = 10_000;

/** Payload of GENERATE_PDF: a titled document of plain-text paragraphs. */
export class GeneratePdfPayload {
  /** Heading of the first page and the PDF's Title. */
  @IsString()
  @Length(1, 200)
  @IsPdfText()
  title: string;

  /** The PDF's Author. */
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @IsPdfText()
  author?: string;

  /** Body text, one entry per paragraph; a line break inside one starts a new line. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_PARAGRAPHS)
  @IsString({ each: true })
  @MaxLength(MAX_PARAGRAPH_LENGTH, { each: true })
  @IsPdfText({ lines: true }, { each: true })
  paragraphs?: string[];
}
