/**
 * Text the server sent, made safe to print on a terminal (CWE-150): a hostile server must not be
 * able to retitle or clear the terminal, move the cursor, or fake a line of the client's own
 * output. Every server-supplied string the client prints goes through `printable` first.
 * @module
 */

/**
 * What is escaped: C0 controls (TAB, LF and CR included: every field printed is one line), DEL,
 * C1 controls (U+0080–U+009F: U+009B is a CSI on some terminals), the line and paragraph
 * separators, and the bidirectional controls that reorder what is shown (Trojan Source).
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, less the C0 controls JSON.stringify escapes itself (and the LF of its indentation). */
const UNPRINTABLE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const escape = (char: string) => SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with every control character written as a visible escape (`\u001b`, `\n`, …), on one
 * line; printable text, other languages and emoji included, is unchanged. Anything not a string
 * is printed as `String` writes it.
 *
 * @example
 * ```ts
 * printable('\u001b]0;pwned\u0007'); // '\\u001b]0;pwned\\u0007'
 * printable('Looking glass');        // 'Looking glass'
 * ```
 */
export function printable(text: unknown): string {
  return String(text).replace(UNPRINTABLE, escape);
}

/**
 * `value` as indented JSON, safe to print: JSON.stringify escapes C0 controls in strings but not
 * DEL, C1 or bidirectional controls, which are escaped here as `\uXXXX` (still valid JSON: they
 * occur only inside strings).
 *
 * @example
 * ```ts
 * printableJson({ title: 'a\u009b2J' }); // '{\n  "title": "a\\u009b2J"\n}'
 * ```
 */
export function printableJson(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? String(value)).replace(UNPRINTABLE_IN_JSON, escape);
}
