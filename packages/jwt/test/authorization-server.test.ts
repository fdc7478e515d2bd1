// Against a real authorization server (oidc-provider on 127.0.0.1): JWT access tokens through its
// key set, opaque ones through its introspection endpoint (docs/contract.md#reading-the-authorization-header).
import { base64url, decodeJwt, decodeProtectedHeader, SignJWT, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { introspectionVerifier, TOKEN_REFUSALS } from '../src/index.js';
import {
  API,
  FOREIGN_RESOURCE,
  JWT_RESOURCE,
  OPAQUE_RESOURCE,
  startAuthorizationServer,
  type AuthorizationServer,
} from '@trpc-oauth2/test-kit/authorization-server';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const TTL = 60;
let as: AuthorizationServer;
let other: AuthorizationServer;

beforeAll(async () => {
  // oidc-provider warns about the runtime and its development adapter: expected here, kept quiet.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  [as, other] = await Promise.all([startAuthorizationServer({ accessTokenTTL: TTL }), startAuthorizationServer()]);
});
afterAll(async () => {
  await Promise.all([as?.close(), other?.close()]);
  vi.restoreAllMocks();
});
afterEach(() => {
  vi.useRealTimers();
  as.breakJwks(false);
});

const jwtOptions = () => ({ jwksUrl: as.jwksUrl, algorithms: ['RS256'] as const, issuer: as.issuer, audience: JWT_RESOURCE });
const introspectionOptions = () => ({
  endpoint: as.introspectionUrl, clientId: API.id, clientSecret: API.secret, audience: OPAQUE_RESOURCE, issuer: as.issuer,
});
const introspection = () => introspectionVerifier(introspectionOptions());
const expire = () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + (TTL + 1) * 1000);
};

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  describe('JWT access tokens, through the key set', () => {
    it('are verified: subject, scopes, expiry and claims come from the token', async () => {
      const token = await as.token(JWT_RESOURCE, 'read');
      const principal = await jwtVerifier({ ...jwtOptions(), requireAccessTokenType: true })(token);
      expect(principal).toEqual({ subject: 'app', scopes: ['read'], expiresAt: decodeJwt(token).exp, claims: decodeJwt(token) });
    });

    it('type principal.claims from a zod schema, and refuse a payload it does not accept', async () => {
      const token = await as.token(JWT_RESOURCE);
      const typed = jwtVerifier({ ...jwtOptions(), claims: z.object({ client_id: z.string(), jti: z.string() }) });
      expect((await typed(token)).claims).toEqual({ client_id: 'app', jti: decodeJwt(token).jti });
      const strict = jwtVerifier({ ...jwtOptions(), claims: z.object({ tenant: z.string() }) });
      expect(await refusalOf(strict(token))).toBe(TOKEN_REFUSALS.claims);
    });

    it('are refused once expired', async () => {
      const token = await as.token(JWT_RESOURCE);
      const verify = jwtVerifier(jwtOptions());
      await verify(token);
      expire();
      expect(await refusalOf(verify(token))).toBe(TOKEN_REFUSALS.expired);
    });

    it('are refused when minted for another audience', async () => {
      const token = await as.token(FOREIGN_RESOURCE);
      expect(await refusalOf(jwtVerifier(jwtOptions())(token))).toBe(TOKEN_REFUSALS.audience);
    });

    it('are refused when another issuer signed them, whatever the verifier is told to trust', async () => {
      const foreign = await other.token(JWT_RESOURCE);
      // No key of this issuer's set signed it, and its `iss` names the other server: it says so
      // (for anyOf to answer with the refusal of a reader it was meant for).
      expect(await refusalOf(jwtVerifier(jwtOptions())(foreign))).toBe(TOKEN_REFUSALS.issuer);
      // The other server's keys, but this issuer expected: its `iss` gives it away.
      expect(await refusalOf(jwtVerifier({ ...jwtOptions(), jwksUrl: other.jwksUrl })(foreign))).toBe(TOKEN_REFUSALS.issuer);
    });

    it('are refused unsigned (alg none), whatever the claims', async () => {
      const claims = decodeJwt(await as.token(JWT_RESOURCE));
      const unsigned = [
        base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt' })),
        base64url.encode(JSON.stringify(claims)),
        '',
      ].join('.');
      expect(await refusalOf(jwtVerifier(jwtOptions())(unsigned))).toBe(TOKEN_REFUSALS.algorithm);
    });

    it('are refused when signed HS256 with the public key as the secret (algorithm confusion)', async () => {
      const genuine = await as.token(JWT_RESOURCE);
      const { kid } = decodeProtectedHeader(genuine);
      const { keys } = (await (await fetch(as.jwksUrl)).json()) as { keys: JWK[] };
      const publicJwk = keys.find((key) => key.kid === kid)!;
      const verify = jwtVerifier(jwtOptions());
      for (const secret of [JSON.stringify(publicJwk), publicJwk.n!]) {
        const forged = await new SignJWT(decodeJwt(genuine))
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: kid! })
          .sign(new TextEncoder().encode(secret));
        expect(await refusalOf(verify(forged))).toBe(TOKEN_REFUSALS.algorithm);
      }
      // And a verifier cannot be built to accept HS256 from a key set at all.
      // @ts-expect-error a key set verifies asymmetric algorithms only
      expect(() => jwtVerifier({ ...jwtOptions(), algorithms: ['RS256', 'HS256'] })).toThrow(TypeError);
    });

    it('follow a key rotation: the first token with the new kid refetches the key set at once', async () => {
      const verify = jwtVerifier({ ...jwtOptions(), cooldownDuration: 60_000 });
      const before = await as.token(JWT_RESOURCE);
      await verify(before);
      const fetched = as.jwksRequests;
      const oldKid = as.kid;

      await as.rotateKey();
      const after = await as.token(JWT_RESOURCE);
      expect(decodeProtectedHeader(after).kid).toBe(as.kid);
      expect(as.kid).not.toBe(oldKid);
      // No blind window: the unknown kid is looked up at once, however recent the last fetch.
      expect((await verify(after)).subject).toBe('app');
      expect(as.jwksRequests).toBe(fetched + 1);
      expect((await verify(after)).subject).toBe('app');
      expect((await verify(before)).subject).toBe('app'); // the old key is still published
      expect(as.jwksRequests).toBe(fetched + 1);
    });

    it('answer 503, not 401, when the key set cannot be fetched', async () => {
      const token = await as.token(JWT_RESOURCE);
      as.breakJwks(true);
      expect(await outcomeOf(jwtVerifier(jwtOptions())(token))).toEqual({ kind: 'unavailable', code: 'ERR_JWKS_UNAVAILABLE' });
    });
  });
});

describe('opaque access tokens, through introspection', () => {
  it('are verified: scopes, expiry and client from the answer', async () => {
    const token = await as.token(OPAQUE_RESOURCE, 'read write');
    const principal = await introspection()(token);
    expect(principal).toMatchObject({ subject: undefined, clientId: 'app', scopes: ['read', 'write'] });
    expect(principal.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(principal.claims).toMatchObject({ active: true, aud: OPAQUE_RESOURCE, iss: as.issuer });
  });

  it('are refused once revoked at the revocation endpoint', async () => {
    const token = await as.token(OPAQUE_RESOURCE);
    const verify = introspection();
    await verify(token);
    await as.revoke(token);
    expect(await refusalOf(verify(token))).toBe(TOKEN_REFUSALS.inactive);
  });

  it('stay accepted after revocation only as long as the cache maxAge says, then are refused', async () => {
    const token = await as.token(OPAQUE_RESOURCE);
    const verify = introspectionVerifier({ ...introspectionOptions(), cache: { maxEntries: 10, maxAge: 5 } });
    await verify(token);
    await as.revoke(token);
    expect((await verify(token)).clientId).toBe('app'); // the documented window
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 6_000);
    expect(await refusalOf(verify(token))).toBe(TOKEN_REFUSALS.inactive);
  });

  it('are refused once expired', async () => {
    const token = await as.token(OPAQUE_RESOURCE);
    const verify = introspection();
    await verify(token);
    expire();
    expect(await refusalOf(verify(token))).toBe(TOKEN_REFUSALS.inactive);
  });

  it('are refused when unknown', async () => {
    expect(await refusalOf(introspection()('not-a-token-this-server-issued'))).toBe(TOKEN_REFUSALS.inactive);
  });

  // What the server answers for tokens that are not this resource's access tokens: each a 401
  // invalid_token, never a 503 that reads as an outage, never a principal.
  it('are refused when a JWT is sent: the server answers 400, which is a 401 here', async () => {
    const jwt = await as.token(JWT_RESOURCE);
    expect(await outcomeOf(introspection()(jwt))).toEqual({
      kind: 'refused',
      description: TOKEN_REFUSALS.rejected,
      challenge: `Bearer error="invalid_token", error_description="${TOKEN_REFUSALS.rejected}"`,
    });
  });

  it("are refused when they are the server's refresh tokens (active, with offline_access, yet no audience)", async () => {
    const refresh = await as.refreshToken(OPAQUE_RESOURCE);
    // The server does say it is active: only the audience invariant keeps it out.
    const raw = await fetch(as.introspectionUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(API.id)}:${encodeURIComponent(API.secret)}`).toString('base64')}` },
      body: new URLSearchParams({ token: refresh }),
    });
    expect(await raw.json()).toMatchObject({ active: true, scope: 'openid offline_access read' });
    expect(await refusalOf(introspection()(refresh))).toBe(TOKEN_REFUSALS.audience);
  });

  it("are refused when issued for another audience, even one this server also introspects", async () => {
    const foreign = await as.token(OPAQUE_RESOURCE);
    const verifyOther = introspectionVerifier({ ...introspectionOptions(), audience: FOREIGN_RESOURCE });
    expect(await refusalOf(verifyOther(foreign))).toBe(TOKEN_REFUSALS.audience);
    expect((await introspection()(foreign)).clientId).toBe('app'); // the same token, for its own audience
  });

  it('are refused when the configured issuer is another', async () => {
    const token = await as.token(OPAQUE_RESOURCE);
    const verify = introspectionVerifier({ ...introspectionOptions(), issuer: other.issuer });
    expect(await refusalOf(verify(token))).toBe(TOKEN_REFUSALS.issuer);
  });

  it('answer 503 when the resource server is not allowed to introspect (a server-side misconfiguration)', async () => {
    const verify = introspectionVerifier({ ...introspectionOptions(), clientSecret: 'wrong' });
    expect(await outcomeOf(verify(await as.token(OPAQUE_RESOURCE)))).toEqual({
      kind: 'unavailable',
      code: 'ERR_INTROSPECTION_UNAVAILABLE',
    });
  });
});
