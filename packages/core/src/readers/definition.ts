/**
 * What a kind of reader is made of (its definition), and what `anyOf` reads of an assembled
 * reader. Internal: never exported from the package.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import type { ChallengeOptions } from '../errors.js';
import type { HeadersLike } from '../headers.js';
import type { OAuth2SecurityScheme, SecurityDeclaration } from '../security-declaration.js';
import type { Principal, TokenVerifier } from './principal.js';
import type { ScopeExpansion } from './security-state.js';
import type { SecurityReaderOptions } from './types.js';
import type { ReaderOrigin } from './verify-request.js';
import type { ReaderDPoPOptions } from '../dpop/reader-dpop.js';

/** How a kind of reader turns the `Authorization` value into what it puts on ctx. */
export interface ReaderDefinition<TKey extends string> {
  key: TKey;
  scheme: OAuth2SecurityScheme;
  defaultSchemeName: string;
  declaredScopes: readonly string[];
  /** `null` means not authenticated. */
  extract: (authorization: string | undefined) => string | null;
  /** Given where the resource's metadata is, when the reader was told (`resourceMetadata`). */
  defaultNotAuthenticatedError: (options?: ChallengeOptions) => TRPCError;
}

/**
 * What `anyOf` needs of each reader it combines, kept under a symbol of this module (not
 * exported from the package).
 */
export interface ReaderParts {
  readonly definition: ReaderDefinition<string>;
  readonly verify: TokenVerifier<Principal> | undefined;
  readonly getHeaders: (ctx: any) => HeadersLike | null | undefined;
  readonly origin: ReaderOrigin;
  /** The reader's `pathPrefix`, normalized (`''` for none). */
  readonly pathPrefix: string;
  /** The reader's scope hierarchy, if it declares one (`anyOf` applies it to the principals this reader's verifier grants). */
  readonly expand: ScopeExpansion | undefined;
  /** The reader's DPoP options, when it accepts DPoP (`anyOf` combines readers that agree on them). */
  readonly dpop: ReaderDPoPOptions | undefined;
  /** The options of subscriptions and of where the credential is, for `anyOf` to carry over. */
  readonly streams: Pick<SecurityReaderOptions<boolean, Principal>, 'allowCredentialInUrl' | 'makeCredentialInUrlError' | 'recheckInterval' | 'makeTokenExpiredError'>;
  /**
   * The options the reader's challenges are made from, as given (not the factories made of them):
   * `anyOf` hands its first reader's to the group, which makes them again with its own DPoP parts.
   */
  readonly challenges: Pick<
    SecurityReaderOptions<boolean, Principal>,
    'resourceMetadata' | 'makeNotAuthenticatedError' | 'makeInvalidTokenError' | 'makeInsufficientScopeError'
  >;
}

/** The key of a reader's {@link ReaderParts}. */
export const READER_PARTS: unique symbol = Symbol('trpc-oauth2.reader-parts') as never;

/** What `anyOf` adds when it assembles its reader: the schemes it accepts besides the first. */
export interface ReaderAssembly {
  readonly alternatives?: SecurityDeclaration['alternatives'];
  /** The hierarchy of the reader that granted each principal, instead of one of the reader's own. */
  readonly expand?: ScopeExpansion;
}
