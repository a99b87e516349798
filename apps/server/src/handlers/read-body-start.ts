/**
 * Reads at most `limit` bytes of a response body as text, then drops the rest of it: a webhook
 * endpoint decides how much it sends, and a result only keeps the start. A body that breaks off
 * (reset, timeout) yields what arrived, because by then the status has already said how the call went.
 * A NUL comes back as U+FFFD, as bytes that are not UTF-8 do: the text goes into a job's result, which
 * PostgreSQL cannot store with a NUL in it, and the whole result would be lost for one character.
 */
export async function readBodyStart(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, limit - bytes);
      bytes += part.length;
      // `stream: true` holds back a character cut in half at the limit instead of mangling it.
      text += decoder.decode(part, { stream: true });
    }
  } catch {
    // Keep what arrived; see above.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text.replaceAll('\0', '\uFFFD');
}
