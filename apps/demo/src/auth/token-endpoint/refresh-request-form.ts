import { z } from 'zod';

/**
 * What a client sends to refresh its access token (RFC 6749 §6), before parsing.
 *
 * @example
 * ```ts
 * const body: RefreshRequestFormInput = { grant_type: 'refresh_token', refresh_token: 'r1…' };
 * ```
 */
export interface RefreshRequestFormInput {
  grant_type: string;
  refresh_token: string;
  scope?: string | null;
  client_id?: string | null;
  client_secret?: string | null;
}

/**
 * A parsed refresh request; the same conventions as core's `passwordRequestForm`.
 *
 * @example
 * ```ts
 * const form: RefreshRequestForm = refreshRequestForm.parse({ grant_type: 'refresh_token', refresh_token: 'r1' });
 * form.scopes; // []
 * ```
 */
export interface RefreshRequestForm {
  grant_type: 'refresh_token';
  refresh_token: string;
  scope: string;
  scopes: string[];
  client_id: string | null;
  client_secret: string | null;
}

const FIELDS = ['grant_type', 'refresh_token', 'scope', 'client_id', 'client_secret'] as const;
type Field = (typeof FIELDS)[number];

/** Last value wins and an empty value counts as absent, as core's form does. */
function lastValues(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const read =
    typeof (input as URLSearchParams).getAll === 'function'
      ? (name: Field) => (input as URLSearchParams).getAll(name).at(-1)
      : (name: Field) => (input as Record<string, unknown>)[name];
  const fields: Partial<Record<Field, unknown>> = {};
  for (const name of FIELDS) {
    const value = read(name);
    if (value !== undefined && value !== null && value !== '') fields[name] = value;
  }
  return fields;
}

/** Errors name the wire field and never quote the value (a refresh token is a secret). */
const text = (field: Field) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field}: field required` : `${field}: must be text`) });

/**
 * The refresh request parser: accepts a plain object, `URLSearchParams` or `FormData`;
 * `grant_type` must be exactly `refresh_token`. Failures are tRPC `BAD_REQUEST` naming the field.
 *
 * @example
 * ```ts
 * const refresh = t.procedure.input(refreshRequestForm).mutation(({ input }) => input.refresh_token);
 * ```
 */
export const refreshRequestForm: z.ZodType<
  RefreshRequestForm,
  RefreshRequestFormInput | FormData | URLSearchParams
> = z
  .preprocess(
    lastValues,
    z.object({
      grant_type: text('grant_type').regex(/^refresh_token$/, { error: 'grant_type: must be "refresh_token"' }),
      refresh_token: text('refresh_token').meta({ format: 'password' }),
      scope: text('scope').optional(),
      client_id: text('client_id').optional(),
      client_secret: text('client_secret').meta({ format: 'password' }).optional(),
    }),
  )
  .transform((form) => {
    const scope = form.scope ?? '';
    return {
      grant_type: 'refresh_token' as const,
      refresh_token: form.refresh_token,
      scope,
      scopes: scope.split(/\s+/).filter(Boolean),
      client_id: form.client_id ?? null,
      client_secret: form.client_secret ?? null,
    };
  }) as never;
