import { IsEmail, IsOptional, IsString, Length, MaxLength } from 'class-validator';

/** Payload of SEND_EMAIL. */
export class SendEmailPayload {
  @IsEmail({ require_tld: false })
  @MaxLength(320)
  to: string;

  @IsString()
  @Length(1, 998)
  subject: string;

  @IsOptional()
  @IsString()
  @MaxLength(512 * 1024)
  text?: string;

  @IsOptional()
  @IsString()
  @MaxLength(512 * 1024)
  html?: string;
}
