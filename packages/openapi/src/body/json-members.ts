/**
 * Finds a member name said twice in one object of a JSON text, which `JSON.parse` hides (it keeps
 * the last): at a token or revocation endpoint such a field is refused as a form field sent
 * twice is (RFC 6749 §3.2). See docs/contract.md#token-responses.
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first of `names` that some object of `text` (valid JSON, at any depth: a tRPC batch, a
 * transformer's envelope) has as a member more than once, compared once decoded
 * (`"client\u005fid"` is `client_id`); `undefined` when none is. Linear in the text; it keeps
 * only names of `names`, per open object.
 *
 * @example
 * ```ts
 * repeatedMember('{"scope":"a","scope":"b"}', new Set(['scope'])); // 'scope'
 * ```
 */
export function repeatedMember(text: string, names: ReadonlySet<string>): string | undefined {
  // One entry per open object (the names of `names` seen in it) or array (`null`).
  const open: (Set<string> | null)[] = [];
  // Whether the next string is a member name: right after `{`, or after `,` in an object.
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const members = open.at(-1);
      if (nameNext && members) {
        const name = JSON.parse(text.slice(i, end)) as string;
        if (names.has(name)) {
          if (members.has(name)) return name;
          members.add(name);
        }
      }
      nameNext = false;
      i = end - 1;
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      nameNext = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
      nameNext = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
      nameNext = false;
    } else if (c === 0x2c /* , */) {
      nameNext = open.at(-1) != null;
    }
  }
  return undefined;
}

/** The index just past the string literal that opens at `start` (its quote). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
  return text.length;
}
