/**
 * docs/contract.md#reading-the-authorization-header: the rules for reading `Authorization`, written again from the text and on purpose
 * not from the source, so the property tests compare two readings of the same rules.
 */

import { isWhitespace } from './whitespace.js';

/** Only A-Z fold: an auth-scheme is an HTTP token, compared ASCII case-insensitively. */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

const trimWhitespace = (text: string) => {
  let start = 0;
  let end = text.length;
  while (start < end && isWhitespace(text[start]!)) start++;
  while (end > start && isWhitespace(text[end - 1]!)) end--;
  return text.slice(start, end);
};

/** Base reader: the whole value, or `null` when absent, empty or only whitespace. */
export function modelBase(header: string | undefined): string | null {
  if (header === undefined) return null;
  return [...header].every(isWhitespace) ? null : header;
}

/**
 * Bearer readers: split at the first space; a scheme equal to `bearer` (ASCII case-insensitive)
 * gives the rest, trimmed (`''` when there is no rest); anything else is `null`.
 */
export function modelBearer(header: string | undefined): string | null {
  if (header === undefined) return null;
  const [scheme, ...rest] = header.split(' ');
  if (asciiLower(scheme!) !== 'bearer') return null;
  return trimWhitespace(rest.join(' '));
}

/** What an HTTP server delivers for a value: Fetch strips surrounding spaces, tabs and line breaks. */
export const asDelivered = (header: string) => header.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
