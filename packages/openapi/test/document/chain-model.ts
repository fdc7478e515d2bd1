/**
 * Verified readers of three issuers, with `anyOf` groups (one nested) and a step-up, and the
 * relation between what an operation's document says and what its chain answered: the document
 * is the truth when every answer is one it allows (docs/contract.md#openapi).
 */
import { anyOf, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, requireAuthentication } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';

const scopes = { me: 'Read you', items: 'Read your items' };
export const SCOPES = ['me', 'items'] as const;
export type Scope = (typeof SCOPES)[number];
export const ISSUERS = ['a', 'b', 'c'] as const;
export type Issuer = (typeof ISSUERS)[number];

/** The scheme each issuer's verifier stands behind. */
const ISSUER_OF_SCHEME: Readonly<Record<string, Issuer>> = { A: 'a', B: 'b', C: 'c' };

/**
 * A token names the issuers whose verifiers accept it, what it grants and how the user logged
 * in: `ac.me+items.mfa`. A token two issuers accept lets a chain of two readers pass.
 */
export interface Token {
  readonly issuers: readonly Issuer[];
  readonly scopes: readonly Scope[];
  readonly acr?: 'mfa' | undefined;
}

export const bearer = (token: Token) => `Bearer ${token.issuers.join('')}.${token.scopes.join('+')}.${token.acr ?? ''}`;

const verifierOf = (issuer: Issuer) => async (token: string) => {
  const [issuers = '', granted = '', acr = ''] = token.split('.');
  if (!issuers.includes(issuer)) throw invalidTokenError(`Not issued by ${issuer}`);
  return { scopes: granted === '' ? [] : granted.split('+'), ...(acr === '' ? {} : { acr }) };
};

/** Each reader's challenges name its own metadata, so a document listing another reader's is caught. */
const metadataOf = (issuer: Issuer) => `https://${issuer}.example/.well-known/oauth-protected-resource`;

export const A = oauth2PasswordBearer({ tokenUrl: 'token', scopes, schemeName: 'A', verify: verifierOf('a'), resourceMetadata: metadataOf('a') });
/** `A`'s twin that lets anonymous requests through: same scheme, same challenge. */
export const optionalA = oauth2PasswordBearer({
  tokenUrl: 'token',
  scopes,
  schemeName: 'A',
  verify: verifierOf('a'),
  resourceMetadata: metadataOf('a'),
  autoError: false,
});
export const B = oauth2AuthorizationCodeBearer({
  authorizationUrl: 'authorize',
  tokenUrl: 'token',
  scopes,
  schemeName: 'B',
  verify: verifierOf('b'),
  resourceMetadata: metadataOf('b'),
});
export const C = oauth2PasswordBearer({ tokenUrl: 'token-c', scopes, schemeName: 'C', verify: verifierOf('c'), resourceMetadata: metadataOf('c') });
export const AB = anyOf(A, B);
/** A nested group: it accepts `B` tokens through `AB` (docs/contract.md#verified-readers). */
export const ABC = anyOf(AB, C);
export const READERS = { A, optionalA, B, C, AB, ABC } as const;
export type ReaderName = keyof typeof READERS;

export const stepUp = () => requireAuthentication({ acrValues: ['mfa'] });

/** Every credential the fixed arrangements are called with: none, and each kind of token. */
export const CREDENTIALS: readonly (Token | null)[] = [
  null,
  ...[['a'], ['b'], ['c'], ['a', 'c']].flatMap((issuers) =>
    [[], ['me'], ['items'], ['me', 'items']].flatMap((granted) =>
      [undefined, 'mfa' as const].map((acr): Token => ({ issuers: issuers as Issuer[], scopes: granted as Scope[], acr })),
    ),
  ),
];

/** What a call answered: its status and challenge. */
export interface Answer {
  readonly status: number;
  readonly challenge: string | null;
}

type Requirement = Readonly<Record<string, readonly string[]>>;
interface DocumentedOperation {
  security?: readonly Requirement[];
  responses: Record<string, { headers?: Record<string, { schema: { examples: string[] } }> }>;
}

/** Whether `credential` meets one OpenAPI Security Requirement: `{}` is an anonymous call. */
function meets(requirement: Requirement, credential: Token | null): boolean {
  const entries = Object.entries(requirement);
  if (entries.length === 0) return credential === null;
  return (
    credential !== null &&
    entries.every(([scheme, required]) => credential.issuers.includes(ISSUER_OF_SCHEME[scheme]!) && required.every((scope) => credential.scopes.includes(scope as Scope)))
  );
}

const errorOf = (challenge: string | null) => /error="([^"]+)"/.exec(challenge ?? '')?.[1];

/**
 * What is wrong with the document of `operation`, given that `credential` was answered `answer`
 * (empty: nothing). A success is one a requirement allows; a credential a requirement allows is
 * refused only by a step-up (OpenAPI cannot say `acr`); and a refusal the document lists (not
 * authenticated, step-up, insufficient scope) is documented with its status and challenge.
 */
export function documentLies(operation: DocumentedOperation, credential: Token | null, answer: Answer): string[] {
  const lies: string[] = [];
  const security = operation.security;
  const allowed = security === undefined || security.some((requirement) => meets(requirement, credential));
  const documented = JSON.stringify(security);
  if (answer.status === 200) {
    if (!allowed) lies.push(`answered 200 but the document (${documented}) allows no such call`);
    return lies;
  }
  const error = errorOf(answer.challenge);
  if (allowed && !(credential !== null && error === 'insufficient_user_authentication')) {
    lies.push(`the document (${documented}) allows the call, which was refused: ${answer.status} ${answer.challenge}`);
  }
  const response = operation.responses[String(answer.status)];
  const examples = response?.headers?.['WWW-Authenticate']?.schema.examples;
  // Every refusal is documented as sent: its status, and its challenge among the examples, the
  // scheme and every parameter (a refused token's description is the verifier's own, and a
  // missing scope's list is the scopes required up to the step that refused, where the document
  // lists the operation's: those two are matched up to their values).
  const loose = (challenge: string) =>
    error === 'invalid_token' ? challenge.replace(/error_description="[^"]*"/, 'error_description=…') : error === 'insufficient_scope' ? challenge.replace(/scope="[^"]*"/, 'scope=…') : challenge;
  if (!examples?.map(loose).includes(loose(answer.challenge!))) lies.push(`${answer.status} ${answer.challenge} is not documented (examples: ${JSON.stringify(examples)})`);
  return lies;
}
