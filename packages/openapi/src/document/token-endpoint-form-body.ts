/**
 * Documents a password-form token route's body as a form, what OAuth2 clients and Swagger UI
 * send, in place of trpc-to-openapi's JSON.
 * @module
 */
import { passwordRequestForm, passwordRequestFormStrict } from '@trpc-oauth2/core';
import type { Operation } from './document-types.js';
import { JSON_MEDIA_TYPE, URLENCODED } from '../body/media-type.js';

const FORMS: readonly unknown[] = [passwordRequestForm, passwordRequestFormStrict];

/**
 * Whether a procedure reads the password request form (`passwordRequestForm` or
 * `passwordRequestFormStrict` as its input): a token endpoint.
 */
export function readsPasswordForm(procedure: { _def: object }): boolean {
  const inputs = (procedure._def as { inputs?: readonly unknown[] }).inputs ?? [];
  return inputs.some((input) => FORMS.includes(input));
}

/**
 * Documents a token endpoint's request body as `application/x-www-form-urlencoded`, what OAuth2
 * clients and Swagger UI send, in place of the JSON trpc-to-openapi assumes. The schema stays the
 * form's own: `grant_type` with pattern `^password$`, `password` and `client_secret` with
 * `format: password`.
 */
export function documentFormBody(operation: Operation): void {
  const body = operation.requestBody;
  if (body === undefined || '$ref' in body) return;
  const media = body.content[JSON_MEDIA_TYPE];
  if (media !== undefined) body.content = { [URLENCODED]: media };
}
