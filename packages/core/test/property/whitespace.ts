/** JavaScript's whitespace (what `String.prototype.trim` and `\s` match), listed rather than reused. */
const WHITESPACE = new Set([
  '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004',
  '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff',
]);

/** Whether one character is whitespace in the sense the readers and the form use. */
export const isWhitespace = (char: string) => WHITESPACE.has(char);

/** The characters of {@link isWhitespace}, for generators. */
export const WHITESPACE_CHARS: readonly string[] = [...WHITESPACE];
