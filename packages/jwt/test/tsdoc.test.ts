import { describe, expect, it } from 'vitest';
import { exportedDocs, missingDocs } from '@trpc-oauth2/test-kit';

const exported = exportedDocs(new URL('../src/index.ts', import.meta.url).pathname);

describe('TSDoc', () => {
  it('the package exports its public API, and only it', () => {
    expect(exported.map((symbol) => symbol.name).sort()).toEqual([
      'AsymmetricAlgorithm',
      'AudienceBoundVerifier',
      'CacheVerifierOptions',
      'HmacAlgorithm',
      'IntrospectionPrincipal',
      'IntrospectionResponse',
      'IntrospectionVerifierOptions',
      'JwtJwksOptions',
      'JwtPrincipal',
      'JwtPublicKeyOptions',
      'JwtSecretOptions',
      'JwtVerifierCommonOptions',
      'JwtVerifierOptions',
      'Principal',
      'TOKEN_REFUSALS',
      'TokenVerifier',
      'VerifierUnavailableError',
      'VerifyOptions',
      'cacheVerifier',
      'introspectionVerifier',
      'jwtVerifier',
      'verifierUnavailableError',
    ]);
  });

  it.each(exported)('$name has a summary, and an @example if it is called', (symbol) => {
    expect(missingDocs(symbol)).toEqual([]);
  });
});
