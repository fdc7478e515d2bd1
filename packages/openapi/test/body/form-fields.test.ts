import { getOAuth2Error } from '@trpc-oauth2/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formFields } from '../../src/body/form.js';
import { URLENCODED } from '../../src/body/media-type.js';

// docs/contract.md#body-limits: a urlencoded body is read as the WHATWG parser reads it, but a
// percent-encoded byte sequence that is not UTF-8 is a 400, never U+FFFD.

const read = (text: string) => formFields(new TextEncoder().encode(text), URLENCODED, URLENCODED);

/**
 * A name or value as the WHATWG urlencoded parser reads it: `+` is a space, `%` and two hex
 * digits a byte, anything else itself, then UTF-8. (Not Node's `URLSearchParams` itself: it reads
 * `é%zz%e2%82%ac` as `\uFFFD%zz€`.)
 */
const whatwgDecoded = (text: string, fatal = false) => {
  const bytes = new TextEncoder().encode(text.replaceAll('+', ' '));
  const out: number[] = [];
  for (let at = 0; at < bytes.length; at++) {
    const hex = String.fromCharCode(bytes[at + 1] ?? 0, bytes[at + 2] ?? 0);
    if (bytes[at] === 0x25 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(Number.parseInt(hex, 16));
      at += 2;
    } else out.push(bytes[at]!);
  }
  return new TextDecoder('utf-8', { fatal, ignoreBOM: true }).decode(new Uint8Array(out));
};

/** Whether every name and value of `text` decodes to UTF-8. */
const isUtf8 = (text: string) => {
  try {
    for (const part of text.split(/[&=]/)) whatwgDecoded(part, true);
    return true;
  } catch {
    return false;
  }
};

/** The fields as the WHATWG urlencoded parser reads them, by the same form rules (last value wins, empty is absent). */
const byWhatwg = (text: string) => {
  const fields: Record<string, string> = Object.create(null);
  for (const sequence of text.split('&').filter(Boolean)) {
    const equals = sequence.includes('=') ? sequence.indexOf('=') : sequence.length;
    const value = whatwgDecoded(sequence.slice(equals + 1));
    if (value === '') delete fields[whatwgDecoded(sequence.slice(0, equals))];
    else fields[whatwgDecoded(sequence.slice(0, equals))] = value;
  }
  return { ...fields };
};

describe('formFields, urlencoded', () => {
  it('reads any body whose escapes are UTF-8 as the WHATWG urlencoded parser does, and refuses every other (property)', async () => {
    // Separators, `+`, lone and broken `%`, UTF-8 escapes (one to four bytes), text that is not ASCII.
    const piece = fc.constantFrom('a', 'Z', '=', '&', '+', '%', '%2', '%zz', '%41', '%2B', '%26', '%3D', '%25', '%C3%A9', '%e2%82%ac', '%F0%9F%98%80', 'é', '€', ' ', '__proto__');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 16 }), async (pieces) => {
        const text = pieces.join('');
        if (isUtf8(text)) expect(await read(text)).toEqual(byWhatwg(text));
        else expect((await read(text).catch(getOAuth2Error))?.code).toBe('ERR_MALFORMED_BODY');
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['a byte that is no UTF-8 at all', 'username=al%FFice'],
    ['another one, which URLSearchParams reads the same', 'username=al%FEice'],
    ['a sequence cut short', 'username=al%C3'],
    ['an overlong encoding', 'username=%C0%AF'],
    ['a lone surrogate', 'username=%ED%A0%80'],
    ['in a field name', 'user%FFname=alice'],
  ])('refuses %s with 400 ERR_MALFORMED_BODY', async (_name, text) => {
    const refused = await read(text).catch(getOAuth2Error);
    expect({ code: refused?.code, status: refused?.status, message: refused?.message }).toEqual({
      code: 'ERR_MALFORMED_BODY',
      status: 400,
      message: 'Failed to parse the application/x-www-form-urlencoded request body',
    });
  });
});

describe('formFields, multipart', () => {
  const encoder = new TextEncoder();
  /** A multipart body of one text part `name`, whose value is `value`'s bytes. */
  const multipart = (value: Uint8Array, name = 'username') =>
    new Uint8Array([
      ...encoder.encode(`--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
      ...value,
      ...encoder.encode('\r\n--b--\r\n'),
    ]);
  const readMultipart = (bytes: Uint8Array) => formFields(new Uint8Array(bytes), 'multipart/form-data', 'multipart/form-data; boundary=b');

  it('reads a text part of UTF-8, whatever its characters (U+FFFD sent as such included)', async () => {
    expect(await readMultipart(multipart(encoder.encode('alïce \uFFFD')))).toEqual({ username: 'alïce \uFFFD' });
  });

  // As a urlencoded `al%FFice` is: the multipart parser alone reads both as `al\uFFFDice`.
  it.each([
    ['a byte that is no UTF-8 at all', multipart(new Uint8Array([0x61, 0x6c, 0xff, 0x69, 0x63, 0x65]))],
    ['another one, which the parser reads the same', multipart(new Uint8Array([0x61, 0x6c, 0xfe, 0x69, 0x63, 0x65]))],
    ['a sequence cut short', multipart(new Uint8Array([0x61, 0x6c, 0xc3]))],
    ['a Latin-1 é', multipart(new Uint8Array([0x61, 0x6c, 0xe9]))],
    ['in a field name', new Uint8Array([...encoder.encode('--b\r\nContent-Disposition: form-data; name="user'), 0xff, ...encoder.encode('"\r\n\r\nalice\r\n--b--\r\n')])],
  ])('refuses %s with 400 ERR_MALFORMED_BODY', async (_name, bytes) => {
    const refused = await readMultipart(bytes).catch(getOAuth2Error);
    expect({ code: refused?.code, status: refused?.status, message: refused?.message }).toEqual({
      code: 'ERR_MALFORMED_BODY',
      status: 400,
      message: 'Failed to parse the multipart/form-data request body',
    });
  });
});
