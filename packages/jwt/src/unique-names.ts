/**
 * Whether a JSON text names one member twice in an object. RFC 8259 §4: names SHOULD be unique,
 * and where they are not, parsers differ on which member they read (`JSON.parse` keeps the last,
 * others the first or refuse). An introspection answer of `{"active":true,…,"active":false}`
 * means one thing to one reader and another to the next: it is no verdict on the token.
 * @module
 */

/**
 * Whether `text`, JSON that `JSON.parse` read, has an object with two members of one name (after
 * unescaping: `"a"` and `"\u0061"` are one name), at any depth. One pass over the text.
 */
export function hasDuplicateNames(text: string): boolean {
  // The names seen in each open object (`undefined` for an array), innermost last.
  const open: (Set<string> | undefined)[] = [];
  let nameNext = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (nameNext) {
        const name = JSON.parse(text.slice(index, end + 1)) as string;
        const names = open.at(-1)!;
        if (names.has(name)) return true;
        names.add(name);
        nameNext = false;
      }
      index = end;
    } else if (char === '{') {
      open.push(new Set());
      nameNext = true;
    } else if (char === '[') {
      open.push(undefined);
      nameNext = false;
    } else if (char === '}' || char === ']') {
      open.pop();
      nameNext = false;
    } else if (char === ',') {
      nameNext = open.at(-1) !== undefined;
    }
  }
  return false;
}
