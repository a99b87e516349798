/**
 * The table the handler writes to, in the schema given by DATABASE_SCHEMA. The name is interpolated into SQL:
 * the packaging test makes it from lower-case letters, digits and underscores only.
 */
export function receivedEmailsTable(): string {
  return `${process.env.DATABASE_SCHEMA ?? 'public'}.received_emails`;
}
