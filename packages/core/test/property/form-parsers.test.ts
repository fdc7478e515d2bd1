import fc from 'fast-check';
import type { ZodError } from 'zod';
import { describe, expect, it } from 'vitest';
import { passwordRequestForm, passwordRequestFormStrict } from '../../src/index.js';
import { FORM_FIELDS } from '../../src/protocol.js';
import { FORM_CASES, isRefusal } from '@trpc-oauth2/test-kit';
import { modelForm, type ModelOutcome, type Variant } from './form-model.js';
import { anyText } from './header-arbitraries.js';
import { WHITESPACE_CHARS } from './whitespace.js';

const RUNS = { numRuns: 250 };
const SECRET = 'S3CR3T-';
const SCHEMAS = { permissive: passwordRequestForm, strict: passwordRequestFormStrict } as const;
type Entries = (readonly [string, unknown])[];

/** `URLSearchParams` and `FormData` hold USVStrings: a lone surrogate becomes U+FFFD. */
const wellFormed = (text: string) =>
  text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
const held = (entries: Entries): Entries =>
  entries.map(([name, value]) => [wellFormed(name), typeof value === 'string' ? wellFormed(value) : value]);

const fieldName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FORM_FIELDS) },
  fc.constantFrom('Username', 'user', 'username ', 'scopes', 'grant-type', 'client_id[]', 'password\0', ''),
  anyText,
);
const scopeText = fc
  .array(fc.oneof(fc.stringMatching(/^[\x21\x23-\x5B\x5D-\x7E]{1,6}$/), fc.constantFrom(...WHITESPACE_CHARS)), { maxLength: 8 })
  .map((parts) => parts.join(''));
const textValue = fc.oneof(
  fc.constantFrom('', 'password', 'Password', 'password ', ' password', 'password\n', 'passwordX', 'alice'),
  scopeText,
  anyText,
  anyText.map((text) => SECRET + text),
);
const objectValue = fc.oneof(
  { weight: 6, arbitrary: textValue },
  fc.constantFrom(null, undefined, true, 0, 7),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);
const fileValue = fc.string({ maxLength: 5 }).map((text) => new File([text], 'field.txt'));

/** Often starts from a valid form, so that later entries override, empty or break it. */
const prefix = fc.subarray<readonly [string, unknown]>([
  ['grant_type', 'password'],
  ['username', 'alice'],
  ['password', `${SECRET}pw`],
]);
const entriesOf = (value: fc.Arbitrary<unknown>) =>
  fc
    .tuple(prefix, fc.array(fc.tuple(fieldName, value), { maxLength: 12 }))
    .map(([start, rest]): Entries => [...start, ...rest]);

const fieldsAtFault = (error: ZodError) => [...new Set(error.issues.map((issue) => String(issue.path[0])))].sort();

/** Parses `body` with both variants and compares each result with the model of `entries`. */
function checkBothVariants(body: unknown, entries: Entries) {
  for (const variant of ['permissive', 'strict'] as Variant[]) {
    const result = SCHEMAS[variant].safeParse(body);
    const expected: ModelOutcome = modelForm(entries, variant);
    if (expected.ok) {
      expect(result.error, variant).toBeUndefined();
      expect(result.data).toEqual(expected.form);
    } else {
      expect(result.success, variant).toBe(false);
      expect(fieldsAtFault(result.error!)).toEqual([...expected.fields].sort());
      for (const issue of result.error!.issues) expect(issue.message.startsWith(`${String(issue.path[0])}: `)).toBe(true);
      expect(JSON.stringify(result.error!.issues)).not.toContain(SECRET);
      expect(result.error!.message).not.toContain(SECRET);
    }
  }
}

describe('form parsers against the model of docs/contract.md#the-password-request-form', () => {
  it('the model agrees with the decision cases', () => {
    for (const c of FORM_CASES) {
      for (const variant of ['permissive', 'strict'] as Variant[]) {
        const expected = c[variant];
        const outcome = modelForm(c.fields, variant);
        expect(outcome, `${variant}: ${c.name}`).toEqual(
          isRefusal(expected) ? { ok: false, fields: expected.errors } : { ok: true, form: expected },
        );
      }
    }
  });

  it('URLSearchParams with repeated, empty, missing and unknown fields', () => {
    fc.assert(
      fc.property(entriesOf(textValue), (entries) => {
        const params = new URLSearchParams(entries.map(([name, value]) => [name, value as string]));
        checkBothVariants(params, held(entries));
      }),
      RUNS,
    );
  });

  it('FormData with repeated, empty, missing and unknown fields, and files', () => {
    fc.assert(
      fc.property(entriesOf(fc.oneof({ weight: 6, arbitrary: textValue }, fileValue)), (entries) => {
        const data = new FormData();
        for (const [name, value] of entries) data.append(name, value as string | File);
        checkBothVariants(data, held(entries));
      }),
      RUNS,
    );
  });

  it('plain objects (one value per key) with values of any type', () => {
    fc.assert(
      fc.property(entriesOf(objectValue), (entries) => {
        checkBothVariants(Object.fromEntries(entries), entries);
      }),
      RUNS,
    );
  });

  it('a field repeated thousands of times: the last value decides', () => {
    fc.assert(
      fc.property(
        prefix,
        fc.constantFrom(...FORM_FIELDS),
        fc.array(textValue, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1000, max: 5000 }),
        (start, field, values, times) => {
          const entries: Entries = [...start, ...Array.from({ length: times }, (_, i) => [field, values[i % values.length]!] as const)];
          checkBothVariants(new URLSearchParams(entries as [string, string][]), held(entries));
          const data = new FormData();
          for (const [name, value] of entries) data.append(name, value as string);
          checkBothVariants(data, held(entries));
        },
      ),
      { numRuns: 15 },
    );
  });
});
