/**
 * What a kind of reader is made of (its definition), and what `anyOf` reads of an assembled
 * reader. Internal: never exported from the package.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import type { HeadersLike } from '../headers.js';
import type { OAuth2SecurityScheme, SecurityDeclaration } from '../security-declaration.js';
import type { Principal, TokenVerifier } from './principal.js';

/** How a kind of reader turns the `Authorization` value into what it puts on ctx. */
export interface ReaderDefinition<TKey extends string> {
  key: TKey;
  scheme: OAuth2SecurityScheme;
  defaultSchemeName: string;
  declaredScopes: readonly string[];
  /** `null` means not authenticated. */
  extract: (authorization: string | undefined) => string | null;
  defaultNotAuthenticatedError: () => TRPCError;
}

/**
 * What `anyOf` needs of each reader it combines, kept under a symbol of this module (not
 * exported from the package).
 */
export interface ReaderParts {
  readonly definition: ReaderDefinition<string>;
  readonly verify: TokenVerifier<Principal> | undefined;
  readonly getHeaders: (ctx: any) => HeadersLike | null | undefined;
  readonly origin: string | undefined;
}

/** The key of a reader's {@link ReaderParts}. */
export const READER_PARTS: unique symbol = Symbol('trpc-oauth2.reader-parts') as never;

/** What `anyOf` adds when it assembles its reader: the schemes it accepts besides the first. */
export interface ReaderAssembly {
  readonly alternatives?: SecurityDeclaration['alternatives'];
}
