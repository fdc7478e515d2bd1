/**
 * The OpenAPI metadata of a chain: each reader's security scheme and flows, the declaration
 * every security middleware carries under {@link SECURITY}, and a procedure's security read back
 * from its chain (the single source of truth). See docs/contract.md#openapi.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import type { AuthenticationRequirement, ChallengeOptions } from './errors.js';

/**
 * Scope name → human description, as OpenAPI's OAuth flow objects declare them.
 *
 * @example
 * ```ts
 * const scopes: ScopeMap = { me: 'Read your profile', items: 'Read your items' };
 * ```
 */
export type ScopeMap = Readonly<Record<string, string>>;

/**
 * OpenAPI 3.1 OAuth Flows Object: the flows a security scheme supports.
 *
 * @example
 * ```ts
 * const flows: OAuthFlows = {
 *   password: { tokenUrl: '/token', scopes: { me: 'Read your profile' } },
 *   authorizationCode: { authorizationUrl: '/authorize', tokenUrl: '/token', scopes: {} },
 * };
 * ```
 */
export interface OAuthFlows {
  implicit?: { authorizationUrl: string; refreshUrl?: string; scopes: ScopeMap };
  password?: { tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
  clientCredentials?: { tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
  authorizationCode?: { authorizationUrl: string; tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
}

/**
 * The scope names declared by any flow of an {@link OAuthFlows}, as a union.
 *
 * @example
 * ```ts
 * type S = FlowScopes<{ password: { tokenUrl: 't'; scopes: { me: '' } } }>; // 'me'
 * ```
 */
export type FlowScopes<TFlows> = {
  [K in keyof TFlows]-?: TFlows[K] extends { scopes: infer $Map } ? keyof $Map & string : never;
}[keyof TFlows];

/**
 * OpenAPI 3.1 Security Scheme Object of type `oauth2`.
 *
 * @example
 * ```ts
 * const scheme: OAuth2SecurityScheme = { type: 'oauth2', flows: { password: { tokenUrl: 'token', scopes: {} } } };
 * ```
 */
export interface OAuth2SecurityScheme {
  type: 'oauth2';
  description?: string;
  flows: OAuthFlows;
}

/**
 * The key under which a security middleware carries its {@link SecurityDeclaration}. It is a
 * global symbol so that two copies of this package still understand each other.
 *
 * @example
 * ```ts
 * auth[SECURITY].schemeName; // 'OAuth2PasswordBearer'
 * ```
 */
export const SECURITY: unique symbol = Symbol.for('trpc-oauth2.security') as never;

/**
 * What one security middleware in a chain declares: its scheme and the scopes it requires.
 * Readers declare themselves with no scopes; `requireScopes` declares scopes for its reader's
 * scheme. Documents are generated from these, so the chain is the single source of truth.
 *
 * @example
 * ```ts
 * const declaration: SecurityDeclaration = {
 *   schemeName: 'OAuth2PasswordBearer',
 *   scheme: auth.securityScheme,
 *   scopes: ['me'],
 * };
 * ```
 */
export interface SecurityDeclaration {
  readonly schemeName: string;
  readonly scheme: OAuth2SecurityScheme;
  readonly scopes: readonly string[];
  /** Set by readers: `true` when the reader lets unauthenticated requests through (`autoError: false`). */
  readonly optional?: boolean;
  /** `true` when the middleware's reader verifies credentials: required scopes then make authentication required. */
  readonly verified?: boolean;
  /**
   * The audiences the reader's verifier accepts, when the verifier names them (its `audience`
   * property): what protected resource metadata is checked against.
   */
  readonly audience?: readonly string[];
  /**
   * The issuers whose tokens the reader's verifier accepts, when the verifier names them (its
   * `issuer` property): what protected resource metadata's authorization servers are checked against.
   */
  readonly issuer?: readonly string[];
  /**
   * Set by `anyOf`: the other schemes this step accepts instead of `schemeName`'s. Each is
   * documented with the same scopes, as an alternative requirement.
   */
  readonly alternatives?: readonly { readonly schemeName: string; readonly scheme: OAuth2SecurityScheme }[];
  /**
   * Set by a reader that accepts DPoP (RFC 9449): what it accepts, in RFC 9728's metadata names,
   * for a protected resource's metadata and the OpenAPI document.
   */
  readonly dpop?: DPoPDeclaration;
  /**
   * Set by a verified reader: what it answers when it refuses, in each scheme it answers in, so a
   * document shows what is sent (its own factories, its metadata, DPoP's scheme).
   */
  readonly refusals?: DeclaredRefusals;
}

/**
 * What a verified reader answers when it refuses, one error per scheme it answers in (Bearer's,
 * DPoP's, or both for a reader that accepts either): its own factories, as a request would meet
 * them.
 *
 * ```ts
 * auth[SECURITY].refusals?.insufficientScope(['me']).map((error) => error.message); // ['Not enough permissions']
 * ```
 */
export interface DeclaredRefusals {
  /** A credential its verifier refuses: 401 `invalid_token`. */
  invalidToken(): readonly TRPCError[];
  /**
   * A DPoP proof it refuses: 401 `invalid_dpop_proof`, and `use_dpop_nonce` (its nonce in
   * `DPoP-Nonce`) when it asks for nonces; none for a reader without DPoP. Absent in a
   * declaration made by an older copy of this package.
   */
  dpopProof?(): readonly TRPCError[];
  /** A principal that lacks `scopes`: 403 `insufficient_scope`. */
  insufficientScope(scopes: readonly string[]): readonly TRPCError[];
  /** A step-up without a factory of its own, not met by its principal: 401 `insufficient_user_authentication`. */
  insufficientUserAuthentication(requirement: AuthenticationRequirement, options: ChallengeOptions & { description?: string }): readonly TRPCError[];
}

/**
 * What a reader accepting DPoP declares, named as RFC 9728 §2 names the metadata.
 *
 * @example
 * ```ts
 * const dpop: DPoPDeclaration = { dpop_signing_alg_values_supported: ['ES256'], dpop_bound_access_tokens_required: true };
 * ```
 */
export interface DPoPDeclaration {
  readonly dpop_signing_alg_values_supported: readonly string[];
  /** `true` when only DPoP-bound tokens are accepted (`mode: 'required'`). */
  readonly dpop_bound_access_tokens_required: boolean;
}

/**
 * The key under which a step-up middleware (`requireAuthentication`) carries its
 * {@link StepUpDeclaration}: a global symbol, as {@link SECURITY} is.
 *
 * @example
 * ```ts
 * requireAuthentication({ acrValues: ['mfa'] })[STEP_UP].requirement; // { acrValues: ['mfa'] }
 * ```
 */
export const STEP_UP: unique symbol = Symbol.for('trpc-oauth2.step-up') as never;

/**
 * What a step-up middleware declares: the authentication it requires and the refusal it answers
 * with. It refuses a request without a principal too, so a chain holding one is never optional
 * and documents its 401 (docs/contract.md#step-up-authentication).
 *
 * @example
 * ```ts
 * const declaration: StepUpDeclaration = {
 *   requirement: { acrValues: ['mfa'] },
 *   makeError: () => insufficientUserAuthenticationError({ acrValues: ['mfa'] }),
 * };
 * ```
 */
export interface StepUpDeclaration {
  readonly requirement: AuthenticationRequirement;
  /** Its refusal (401 `insufficient_user_authentication`), built by the middleware's own `makeError`. */
  makeError(): TRPCError;
  /**
   * Without a `makeError` of the application's: its refusal in the scheme of the reader whose
   * principal it checks (a token sent with DPoP is refused in DPoP's), from that reader's refusals.
   */
  readonly inScheme?: (refusals: DeclaredRefusals) => readonly TRPCError[];
}

/**
 * A declaration and, for an `anyOf` step, one declaration per alternative scheme with the same
 * scopes: what a document lists as alternative requirements (docs/contract.md#openapi).
 *
 * @example
 * ```ts
 * expandDeclaration(anyOf(password, code)[SECURITY]).map((declaration) => declaration.schemeName); // ['Password', 'Code']
 * ```
 */
export function expandDeclaration(declaration: SecurityDeclaration): SecurityDeclaration[] {
  const { alternatives, ...own } = declaration;
  if (alternatives === undefined || alternatives.length === 0) return [declaration];
  return [own, ...alternatives.map(({ schemeName, scheme }) => ({ ...own, schemeName, scheme }))];
}

/**
 * The security of one procedure, merged from every security middleware in its chain, read in
 * one walk of the chain: what a document writes (docs/contract.md#openapi).
 *
 * @example
 * ```ts
 * const security: ProcedureSecurity = {
 *   schemes: { OAuth2PasswordBearer: auth.securityScheme },
 *   requirements: [{ OAuth2PasswordBearer: ['me', 'items'] }],
 *   requirement: { OAuth2PasswordBearer: ['me', 'items'] },
 *   optional: false,
 *   declarations: [auth[SECURITY], auth.requireScopes('me', 'items')[SECURITY]],
 *   notAuthenticatedErrors: [() => auth.makeNotAuthenticatedError()],
 *   stepUpErrors: [],
 * };
 * ```
 */
export interface ProcedureSecurity {
  /** Every scheme the chain uses, by scheme name. */
  schemes: Record<string, OAuth2SecurityScheme>;
  /**
   * The OpenAPI Security Requirements the chain enforces: alternatives, each naming every scheme
   * a request must pass together, with the scopes required of it (docs/contract.md#openapi).
   * Without `{}`: {@link ProcedureSecurity.optional} says whether it is listed too.
   */
  requirements: Record<string, string[]>[];
  /** The requirements merged: every scheme a request may have to pass, with the scopes required of it. */
  requirement: Record<string, string[]>;
  /**
   * `true` when every reader in the chain has `autoError: false`: authentication is optional;
   * unless the chain requires scopes of a verified reader (docs/contract.md#verified-readers) or
   * holds a step-up (docs/contract.md#step-up-authentication).
   */
  optional: boolean;
  /**
   * Every security declaration of the chain, in the order the chain runs: two different schemes
   * under one name are caught even inside one chain, and scopes read in the order they accumulate.
   */
  declarations: readonly SecurityDeclaration[];
  /**
   * The errors the chain answers an unauthenticated request with, in chain order, each from its
   * reader's own `makeNotAuthenticatedError` (so an overridden factory is documented as it
   * behaves): each reader that refuses one (not `autoError: false`), and, when the chain requires
   * scopes of a verified reader, every verified reader it consults (authentication stops being
   * optional then: docs/contract.md#verified-readers).
   */
  notAuthenticatedErrors: readonly (() => TRPCError)[];
  /**
   * For each step-up (`requireAuthentication`) of the chain, its refusals (401
   * `insufficient_user_authentication`): its own factory's, or one in each scheme the chain's
   * verified readers answer in.
   */
  stepUpErrors: readonly (() => TRPCError)[];
  /** What each verified reader of the chain answers when it refuses (one entry per reader). */
  refusals: readonly DeclaredRefusals[];
}

/** A security middleware as the chain holds it: its declaration, and a reader's error factory. */
interface SecurityMiddleware {
  [SECURITY]?: SecurityDeclaration;
  [STEP_UP]?: StepUpDeclaration;
  makeNotAuthenticatedError?: () => TRPCError;
}

/** A chain's declarations and error factories, in chain order, as one walk finds them. */
interface ChainSteps {
  /** The declarations as the steps carry them (an `anyOf` step once, with its alternatives). */
  readonly steps: SecurityDeclaration[];
  /** Each reader step and `withScopes` step: whether it is optional, and its not-authenticated error. */
  readonly refusers: { readonly schemeName: string; readonly optional: boolean; readonly make: (() => TRPCError) | undefined }[];
  readonly stepUps: StepUpDeclaration[];
}

/** Reads the chain's security middlewares, in the order the chain runs them. */
function chainSteps(middlewares: readonly (SecurityMiddleware | null)[]): ChainSteps {
  const chain: ChainSteps = { steps: [], refusers: [], stepUps: [] };
  for (const middleware of middlewares) {
    const stepUp = middleware?.[STEP_UP];
    if (stepUp !== undefined) chain.stepUps.push(stepUp);
    const declaration = middleware?.[SECURITY];
    if (declaration === undefined) continue;
    chain.steps.push(declaration);
    const refuse = middleware!.makeNotAuthenticatedError;
    // A reader's step and `withScopes` say whether they are optional; a verified reader's
    // `requireScopes` consults its reader and refuses a request without a credential whatever it says.
    if (declaration.optional === undefined && typeof refuse !== 'function') continue;
    const make = typeof refuse === 'function' ? () => refuse.call(middleware) : undefined;
    chain.refusers.push({ schemeName: declaration.schemeName, optional: declaration.optional === true, make });
  }
  return chain;
}

/** The schemes one step accepts: its reader's, or any of an `anyOf` group's. */
const schemesOf = (declaration: SecurityDeclaration): string[] => [declaration.schemeName, ...(declaration.alternatives ?? []).map(({ schemeName }) => schemeName)];

/** Every way to pick one scheme of each choice: each way's schemes once, in first-seen order. */
function everyWay(choices: readonly (readonly string[])[]): string[][] {
  let ways: string[][] = [[]];
  for (const choice of choices) ways = ways.flatMap((way) => choice.map((name) => (way.includes(name) ? way : [...way, name])));
  return ways;
}

const within = (some: readonly string[], all: readonly string[]) => some.every((name) => all.includes(name));

/**
 * The ways that hold no other way (of equal ways, the first): a token that passes a way passes
 * every way it holds, so the larger one adds nothing.
 */
function fewest(ways: readonly string[][]): string[][] {
  return ways.filter((way, i) => !ways.some((other, j) => j !== i && within(other, way) && (j < i || other.length < way.length)));
}

/**
 * The requirements a chain enforces. Without a verified reader, one per scheme with the scopes
 * required of it: nothing but the application checks them (docs/contract.md#openapi). With one,
 * every step consults its reader with the same credential, a verified reader refusing a token
 * it does not verify, and every principal must grant every scope of the chain (`checkState`,
 * docs/contract.md#verified-readers): a token passes when it passes one scheme of each step at
 * once (any reader of an `anyOf` group), so each requirement is such a pick, all its schemes
 * together, a verified scheme with every scope of the chain. A member's own step narrows its
 * group: the picks that leave that member out need more schemes and are dropped.
 */
function requirementsOf(steps: readonly SecurityDeclaration[], own: Record<string, string[]>): Record<string, string[]>[] {
  if (!steps.some((step) => step.verified === true)) return Object.entries(own).map(([name, scopes]) => ({ [name]: scopes }));
  const all = [...new Set(steps.flatMap((step) => step.scopes))];
  const verified = new Set(steps.filter((step) => step.verified === true).flatMap(schemesOf));
  const choices = new Map(steps.map((step) => [JSON.stringify(schemesOf(step)), schemesOf(step)]));
  return fewest(everyWay([...choices.values()])).map((way) =>
    Object.fromEntries(way.map((name) => [name, verified.has(name) ? [...all] : [...own[name]!]])),
  );
}

/**
 * What the chain answers an unauthenticated request with: each reader that refuses one, and,
 * once it requires scopes of a verified reader, the reader of every verified step (a
 * `requireScopes` step answers with its reader's error: that of a step of its scheme).
 */
function notAuthenticatedErrorsOf({ steps, refusers }: ChainSteps, scopesRequired: boolean): (() => TRPCError)[] {
  const refusing = refusers.filter((refuser) => !refuser.optional);
  if (scopesRequired) {
    for (const step of steps) {
      const refuser = step.verified === true ? refusers.find(({ schemeName, make }) => schemeName === step.schemeName && make !== undefined) : undefined;
      if (refuser !== undefined && !refusing.includes(refuser)) refusing.push(refuser);
    }
  }
  // One error per scheme: a reader's step and its `requireScopes` answer with the same one.
  const byScheme = new Map<string, () => TRPCError>();
  for (const { schemeName, make } of refusing) if (make !== undefined && !byScheme.has(schemeName)) byScheme.set(schemeName, make);
  return [...byScheme.values()];
}

/**
 * Reads a built procedure's (or procedure builder's) security from its middleware chain, in one
 * walk. Returns `undefined` for a procedure that uses no reader, requires no scope and holds no
 * step-up.
 *
 * @example
 * ```ts
 * const router = t.router({ me: authed.use(auth.requireScopes('me')).query(() => 1) });
 * getProcedureSecurity(router.me)?.requirements; // [{ OAuth2PasswordBearer: ['me'] }]
 * ```
 */
export function getProcedureSecurity(procedure: { _def: object }): ProcedureSecurity | undefined {
  const middlewares = ((procedure._def as { middlewares?: readonly unknown[] }).middlewares ?? []) as readonly (SecurityMiddleware | null)[];
  const chain = chainSteps(middlewares);
  const { steps, refusers, stepUps } = chain;
  if (steps.length === 0 && stepUps.length === 0) return undefined;
  const schemes: Record<string, OAuth2SecurityScheme> = {};
  const own: Record<string, string[]> = {};
  // An `anyOf` step stands for each scheme it accepts, with the same scopes.
  const declarations = steps.flatMap((step) => expandDeclaration(step));
  // Each verified reader once: its steps share one set of refusals.
  const refusals = [...new Set(steps.flatMap((step) => (step.refusals === undefined ? [] : [step.refusals])))];
  for (const declaration of declarations) {
    schemes[declaration.schemeName] = declaration.scheme;
    const scopes = (own[declaration.schemeName] ??= []);
    for (const scope of declaration.scopes) if (!scopes.includes(scope)) scopes.push(scope);
  }
  const requirements = requirementsOf(steps, own);
  // Required scopes make a verified reader's authentication required (docs/contract.md#verified-readers).
  const scopesRequired = steps.some((step) => step.verified === true) && steps.some((step) => step.scopes.length > 0);
  const everyReaderOptional = refusers.length > 0 && refusers.every((refuser) => refuser.optional);
  return {
    schemes,
    requirements,
    requirement: Object.assign({}, ...requirements) as Record<string, string[]>,
    optional: everyReaderOptional && !scopesRequired && stepUps.length === 0,
    declarations,
    notAuthenticatedErrors: notAuthenticatedErrorsOf(chain, scopesRequired),
    stepUpErrors: stepUpErrorsOf(stepUps, refusals),
    refusals,
  };
}

/**
 * Each step-up's refusals: its own factory's, or, without one, its refusal in each scheme the
 * chain's verified readers answer in (Bearer's when none says).
 */
function stepUpErrorsOf(stepUps: readonly StepUpDeclaration[], refusals: readonly DeclaredRefusals[]): (() => TRPCError)[] {
  return stepUps.flatMap((stepUp) => {
    const { inScheme } = stepUp;
    if (inScheme === undefined || refusals.length === 0) return [() => stepUp.makeError()];
    return refusals.flatMap((refusal) => inScheme(refusal)).map((error) => () => error);
  });
}
