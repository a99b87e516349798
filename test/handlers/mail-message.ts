/** An e-mail as received: headers by lower-case name (folded lines joined) and the raw body. */
export interface MailMessage {
  headers: Map<string, string>;
  body: string;
}

/**
 * Splits an RFC 5322 message into headers and body — enough to check what a handler sent without a
 * MIME library. Throws when the text is not shaped like a message (no header block, a line that is
 * neither a header nor a continuation).
 */
export function parseMailMessage(raw: string): MailMessage {
  const text = raw.replace(/\r\n/g, '\n');
  const end = text.indexOf('\n\n');
  if (end < 0) throw new Error('not an e-mail: no blank line after the headers');
  const headers = new Map<string, string>();
  let last: string | undefined;
  for (const line of text.slice(0, end).split('\n')) {
    if (/^[ \t]/.test(line) && last) {
      headers.set(last, `${headers.get(last)} ${line.trim()}`);
      continue;
    }
    const match = /^([!-9;-~]+):[ \t]*(.*)$/.exec(line);
    if (!match) throw new Error(`not an e-mail: bad header line ${JSON.stringify(line)}`);
    last = match[1].toLowerCase();
    headers.set(last, match[2]);
  }
  return { headers, body: text.slice(end + 2) };
}
