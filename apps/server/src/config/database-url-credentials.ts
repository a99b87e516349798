/** Why `databaseUrlCredentialsProblem` refuses a URL; it never repeats the URL, which carries the password. */
export const UNDECODABLE_CREDENTIALS =
  'its user name or password has a "%" that starts no percent-escape: percent-encode them (write "%" as %25)';

/**
 * Why TypeORM cannot read the user name and password of DATABASE_URL, or null. It percent-decodes both, so a
 * password pasted as it is, with a `%` not followed by two hex digits, fails there with only "URI malformed" and no
 * word of which setting or part is wrong. (pg alone would take such a `%` literally; TypeORM reads the URL first.)
 */
export function databaseUrlCredentialsProblem(url: string): string | null {
  const scheme = url.indexOf('://');
  const authEnd = url.indexOf('/', scheme + 3);
  const authority = url.slice(scheme + 3, authEnd === -1 ? undefined : authEnd);
  const at = authority.lastIndexOf('@');
  if (at === -1) return null;
  try {
    for (const part of authority.slice(0, at).split(':')) decodeURIComponent(part);
    return null;
  } catch {
    return UNDECODABLE_CREDENTIALS;
  }
}
