/**
 * The table of docs/contract.md#reading-the-authorization-header: what each value gives a bearer
 * reader (`null` = not authenticated) and the base reader.
 */
export interface HeaderCase {
  /** `undefined`: the header is not sent. */
  header: string | undefined;
  bearer: string | null;
  base: string | null;
}

export const HEADER_TABLE: readonly HeaderCase[] = [
  { header: undefined, bearer: null, base: null },
  { header: '', bearer: null, base: null },
  { header: '   ', bearer: null, base: null },
  { header: 'Bearer abc', bearer: 'abc', base: 'Bearer abc' },
  { header: 'bearer abc', bearer: 'abc', base: 'bearer abc' },
  { header: 'BEARER abc', bearer: 'abc', base: 'BEARER abc' },
  { header: 'Bearer  abc', bearer: 'abc', base: 'Bearer  abc' },
  { header: 'Bearer abc def', bearer: 'abc def', base: 'Bearer abc def' },
  { header: 'Bearer', bearer: '', base: 'Bearer' },
  { header: 'Bearer ', bearer: '', base: 'Bearer' },
  { header: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l', bearer: null, base: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' },
  { header: 'Token abc', bearer: null, base: 'Token abc' },
  { header: 'Bearerabc', bearer: null, base: 'Bearerabc' },
  { header: 'Bearer:abc', bearer: null, base: 'Bearer:abc' },
  { header: 'Bearer\tabc', bearer: null, base: 'Bearer\tabc' },
  // RFC 9449's scheme: a reader without `dpop` reads no token from it (see DPOP_TABLE for one with).
  { header: 'DPoP abc', bearer: null, base: 'DPoP abc' },
  { header: 'dpop abc', bearer: null, base: 'dpop abc' },
];
