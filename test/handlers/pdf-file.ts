import { inflateSync } from 'node:zlib';

/** What a test needs to know about a PDF file. */
export interface PdfFacts {
  /** From the header, e.g. `1.3`. */
  version: string;
  /** Page objects (`/Type /Page`) in the file. */
  pages: number;
  /** `/Count` of the page tree's root (`/Type /Pages` without a parent). */
  declaredPages: number;
  /** The text the content streams show, one line per text-showing operator. */
  text: string;
}

/** Windows-1252's bytes 0x80-0x9f (where it differs from Latin-1), as the standard fonts' WinAnsiEncoding uses them. */
const WIN_ANSI_EXTRAS: Record<number, string> = {
  0x80: '€',
  0x82: '‚',
  0x83: 'ƒ',
  0x84: '„',
  0x85: '…',
  0x86: '†',
  0x87: '‡',
  0x88: 'ˆ',
  0x89: '‰',
  0x8a: 'Š',
  0x8b: '‹',
  0x8c: 'Œ',
  0x8e: 'Ž',
  0x91: '‘',
  0x92: '’',
  0x93: '“',
  0x94: '”',
  0x95: '•',
  0x96: '–',
  0x97: '—',
  0x98: '˜',
  0x99: '™',
  0x9a: 'š',
  0x9b: '›',
  0x9c: 'œ',
  0x9e: 'ž',
  0x9f: 'Ÿ',
};

/** Node's TextDecoder reads "windows-1252" as plain Latin-1, so the differences are mapped here. */
function decodeWinAnsi(bytes: Buffer): string {
  return Array.from(bytes, (b) => WIN_ANSI_EXTRAS[b] ?? String.fromCharCode(b)).join('');
}

/**
 * Checks that `bytes` is a whole, well-formed classic PDF — `%PDF-` header, `%%EOF` at the end,
 * `startxref` pointing at a cross-reference table (or stream) whose every in-use entry points at the
 * object it names, every stream exactly as long as its /Length — and reads its pages and text.
 * Content streams may be Flate-compressed (pdfkit's default). Throws naming the first problem: enough
 * to catch a truncated or garbled file without a PDF library.
 */
export function inspectPdf(bytes: Buffer): PdfFacts {
  const text = bytes.toString('latin1');
  const header = /^%PDF-(\d\.\d)/.exec(text);
  if (!header) throw new Error('not a PDF: no %PDF- header');
  if (!/%%EOF\s*$/.test(text)) throw new Error('not a whole PDF: no %%EOF at the end');
  const tail = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text);
  if (!tail) throw new Error('no startxref before %%EOF');
  checkCrossReferences(text, Number(tail[1]));

  const streams = readStreams(bytes, text);
  const pages = (text.match(/\/Type\s*\/Page(?![A-Za-z])/g) ?? []).length;
  const root = /\/Type\s*\/Pages(?![A-Za-z])(?:(?!endobj)[\s\S])*?\/Count\s+(\d+)/.exec(text);
  if (!root) throw new Error('no page tree with a /Count');
  return { version: header[1], pages, declaredPages: Number(root[1]), text: streams.map(shownText).filter(Boolean).join('\n') };
}

function checkCrossReferences(text: string, offset: number): void {
  const at = text.slice(offset);
  if (/^\d+\s+\d+\s+obj\s*<<[^]*?\/Type\s*\/XRef/.test(at)) return; // a cross-reference stream: its binary entries are not checked
  if (!at.startsWith('xref')) throw new Error(`startxref ${offset} points at neither an xref table nor an xref stream`);
  const section = /^xref\s+((?:\d+\s+\d+\s+(?:\d{10} \d{5} [nf]\s{1,2})*)+)trailer/.exec(at);
  if (!section) throw new Error('the xref table is malformed');
  const lines = section[1]
    .trim()
    .split(/\s*\n\s*|\r\n?/)
    .filter(Boolean);
  let i = 0;
  while (i < lines.length) {
    const [first, count] = lines[i++].split(/\s+/).map(Number);
    for (let n = 0; n < count; n++, i++) {
      const [entryOffset, generation, kind] = lines[i].split(' ');
      if (kind !== 'n') continue;
      const object = first + n;
      const found = new RegExp(`^${object}\\s+${Number(generation)}\\s+obj\\b`).test(
        text.slice(Number(entryOffset), Number(entryOffset) + 40),
      );
      if (!found) throw new Error(`xref entry of object ${object} points at offset ${Number(entryOffset)}, which does not start it`);
    }
  }
}

/** Every stream's data, inflated when it is Flate-encoded; checks each ends exactly where /Length says. */
function readStreams(bytes: Buffer, text: string): Buffer[] {
  const streams: Buffer[] = [];
  const keyword = /\bstream\r?\n/g;
  for (let match = keyword.exec(text); match; match = keyword.exec(text)) {
    const dictionary = text.slice(text.lastIndexOf(' obj', match.index), match.index);
    const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dictionary);
    if (!length) throw new Error(`the stream at ${match.index} has no direct /Length`);
    const start = match.index + match[0].length;
    const end = start + Number(length[1]);
    if (!/^\s*endstream/.test(text.slice(end, end + 20)))
      throw new Error(`the stream at ${match.index} does not end where its /Length says`);
    const data = bytes.subarray(start, end);
    streams.push(/\/FlateDecode/.test(dictionary) ? inflateSync(data) : data);
    keyword.lastIndex = end;
  }
  return streams;
}

/** Text shown by `[...] TJ` and `<...> Tj` in a content stream (hex strings, as pdfkit writes them). */
function shownText(stream: Buffer): string {
  const content = stream.toString('latin1');
  const lines: string[] = [];
  for (const op of content.matchAll(/\[([^\]]*)\]\s*TJ|(<[0-9A-Fa-f\s]*>)\s*Tj/g)) {
    const strings = (op[1] ?? op[2]).match(/<[0-9A-Fa-f\s]*>/g) ?? [];
    lines.push(strings.map((s) => decodeWinAnsi(Buffer.from(s.slice(1, -1).replace(/\s/g, ''), 'hex'))).join(''));
  }
  return lines.join('\n');
}
