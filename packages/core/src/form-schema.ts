import { z } from 'zod';
import { PASSWORD_GRANT_TYPE, SCOPE_SEPARATOR } from './grammar.js';
import { formFields, type FormField } from './form-fields.js';

/** A text field whose errors name the wire field, and never quote what was sent. */
export const textField = (field: FormField) =>
  z.string({
    error: (issue) => (issue.input === undefined ? `${field}: field required` : `${field}: must be text`),
  });

/** `grant_type`, whole-string `password` (pattern `^password$` in the OpenAPI document). */
export const grantTypeField = () =>
  textField('grant_type').regex(PASSWORD_GRANT_TYPE, { error: 'grant_type: must be "password"' });

/** A secret field: `format: password` in the OpenAPI document. */
export const secretField = (field: FormField) => textField(field).meta({ format: 'password' });

/** The parsed form's common fields. */
export interface ParsedFormFields {
  username: string;
  password: string;
  /** The `scope` field as sent (`''` when absent). */
  scope: string;
  /** `scope` split on whitespace, without empty entries. */
  scopes: string[];
  client_id: string | null;
  client_secret: string | null;
}

/**
 * Builds a form schema: normalise the body (last value wins, empty means absent), validate the
 * wire fields, then derive `scopes` and the `null` defaults.
 */
export function formSchema(grantType: z.ZodType<string | undefined>) {
  const wire = z.object({
    grant_type: grantType,
    username: textField('username'),
    password: secretField('password'),
    scope: textField('scope').optional(),
    client_id: textField('client_id').optional(),
    client_secret: secretField('client_secret').optional(),
  });
  return z.preprocess(formFields, wire).transform((form) => {
    const scope = form.scope ?? '';
    return {
      grant_type: (form.grant_type ?? null) as 'password' | null,
      username: form.username,
      password: form.password,
      scope,
      scopes: scope.split(SCOPE_SEPARATOR).filter(Boolean),
      client_id: form.client_id ?? null,
      client_secret: form.client_secret ?? null,
    };
  });
}
