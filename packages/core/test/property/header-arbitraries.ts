import fc from 'fast-check';

/** Any UTF-16 code unit, lone surrogates included. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
/** C0 controls, DEL, C1 controls. */
const controlUnit = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }),
  fc.constant(0x7f),
  fc.integer({ min: 0x80, max: 0x9f }),
).map((code) => String.fromCharCode(code));
/** Characters that look like, fold to, or hide next to the letters of `bearer`. */
const trickyUnit = fc.constantFrom(
  ' ', '\t', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u200b', ':', ',', '=', '"', 'İ', 'ı', 'ſ', 'K', 'ß', 'ʙ', 'Ｂ', 'е', 'а', 'р',
);
const unit = fc.oneof({ weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) }, anyUnit, controlUnit, trickyUnit);

/** Short strings of any characters, weighted to the awkward ones. */
export const anyText = fc.string({ unit, maxLength: 40 });

/** Up to ~20 000 characters: a short piece repeated. */
export const longText = fc
  .tuple(fc.string({ unit, minLength: 1, maxLength: 3 }), fc.integer({ min: 500, max: 10_000 }))
  .map(([piece, times]) => piece.repeat(times));

/** `bearer` with each letter's case chosen at random, sometimes one letter changed or dropped. */
const schemeNearMiss = fc
  .tuple(fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), fc.option(fc.tuple(fc.nat(5), trickyUnit), { freq: 3 }), fc.boolean())
  .map(([upper, swap, drop]) => {
    const letters = [...'bearer'].map((c, i) => (upper[i] ? c.toUpperCase() : c));
    if (swap) letters[swap[0]] = drop ? '' : swap[1];
    return letters.join('');
  });
const scheme = fc.oneof(
  { weight: 4, arbitrary: schemeNearMiss },
  fc.constantFrom('Basic', 'Token', 'Digest', 'bearerx', 'xbearer', 'beare', ''),
  anyText,
);
const separator = fc.constantFrom('', ' ', '  ', '\t', ' \t', ':', '\u00a0', '\n', ' \r\n ');

/** Authorization values shaped like `<scheme><separator><credential>`, plus anything at all. */
export const authorizationValue = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(scheme, separator, fc.oneof({ weight: 3, arbitrary: anyText }, longText)).map((parts) => parts.join('')) },
  anyText,
  longText,
);

/** Latin-1 values without NUL, CR or LF inside: what a Fetch `Headers` object accepts. */
export const fetchHeaderValue = authorizationValue.map((value) =>
  value.replace(/[^\x01-\xff]|[\r\n]/g, (c) => (c === '\r' || c === '\n' ? ' ' : 'x')),
);
