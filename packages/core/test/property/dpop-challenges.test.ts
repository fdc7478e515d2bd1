/**
 * docs/contract.md#dpop and docs/contract.md#challenges over the arrangements a user can write: a
 * reader that accepts DPoP (either mode, with or without `resourceMetadata`, one reader or `anyOf`
 * of two that agree, with or without a nonce checker), any credential (none, Bearer or DPoP;
 * bound, unbound or unknown; with the scopes or without), any proof fault, a credential in the
 * URL. Every refusal, as tRPC's fetch adapter answers it, challenges in the schemes the contract
 * names: DPoP alone (ending with `algs`) for a token sent with DPoP, a bound token sent as Bearer
 * and anything a DPoP-only reader refuses; Bearer for an unbound token sent as Bearer where DPoP
 * is allowed; both, in one header, for no credential where DPoP is allowed. Each challenge names
 * the metadata exactly when the reader was given it.
 */
import { initTRPC } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyOf, oauth2ResponseMeta, type Principal } from '../../src/index.js';
import { dpopNonces, dpopProofVerifier } from '../../src/dpop/index.js';
import { boundAndOtherKeyBeforeAll, proofWithFault, readerKnowing, type ProofFault } from '../support/dpop-arrangements.js';

const ORIGIN = 'https://api.example.test';
const METADATA = `${ORIGIN}/.well-known/oauth-protected-resource`;
const ALGS = 'algs="ES256"';
const PROOF_FAULTS = ['none', 'other-key', 'htu', 'ath', 'stale', 'missing', 'no-nonce'] as const satisfies readonly ProofFault[];
const nonces = dpopNonces({ secret: 'a-secret-of-at-least-thirty-two-bytes-0123' });

const keys = boundAndOtherKeyBeforeAll();

const arrangement = fc.record({
  mode: fc.constantFrom('allowed' as const, 'required' as const),
  metadata: fc.boolean(),
  combined: fc.boolean(),
  withNonces: fc.boolean(),
  token: fc.constantFrom('bound', 'unbound', 'unknown'),
  scopes: fc.constantFrom('enough', 'missing'),
  scheme: fc.constantFrom('Bearer', 'DPoP', 'none', 'in-url-bearer', 'in-url-dpop'),
  proof: fc.constantFrom(...PROOF_FAULTS),
});

let sequence = 0;

/** The challenges of one `WWW-Authenticate` value, split before each scheme name. */
const challengesOf = (header: string) => header.split(/, (?=(?:Bearer|DPoP)\b)/);

describe('every refusal of a DPoP reader', () => {
  it('challenges in the schemes the contract names, with algs and the metadata', async () => {
    await fc.assert(
      fc.asyncProperty(arrangement, async (a) => {
        const token = `token-${++sequence}`;
        const granted = a.scopes === 'enough' ? ['me'] : [];
        const principal: Principal = a.token === 'bound' ? { scopes: granted, cnf: { jkt: keys.jkt } } : { scopes: granted };
        const proofs = dpopProofVerifier({ algorithms: ['ES256'], ...(a.withNonces ? { nonces } : {}) });
        const reader = (index: number) =>
          readerKnowing({
            index,
            origin: ORIGIN,
            token,
            knows: a.token !== 'unknown' && index === 0,
            principal,
            mode: a.mode,
            proofs,
            ...(a.metadata ? { resourceMetadata: METADATA } : {}),
          });
        const guard = a.combined ? anyOf(reader(0), reader(1)) : reader(0);
        const t = initTRPC.context<{ req: Request; info: unknown }>().create();
        const router = t.router({ me: t.procedure.use(guard.withScopes('me')).query(() => 'ran') });

        const inUrl = a.scheme === 'in-url-bearer' || a.scheme === 'in-url-dpop';
        const sent = a.scheme === 'in-url-dpop' ? 'DPoP' : a.scheme === 'in-url-bearer' ? 'Bearer' : a.scheme;
        const url = `${ORIGIN}/trpc/me`;
        const headers: Record<string, string> = {};
        const query = inUrl ? `?connectionParams=${encodeURIComponent(JSON.stringify({ authorization: `${sent} ${token}` }))}` : '';
        if (!inUrl && a.scheme !== 'none') headers.authorization = `${a.scheme} ${token}`;
        const nonce = a.withNonces ? { nonce: await nonces.current() } : {};
        const proof = await proofWithFault(a.proof, keys, { method: 'GET', url, token, ...nonce });
        if (proof !== undefined) headers.dpop = proof;
        const response = await fetchRequestHandler({
          endpoint: '/trpc',
          req: new Request(`${url}${query}`, { headers }),
          router,
          createContext: ({ req, info }) => ({ req, info }),
          responseMeta: oauth2ResponseMeta(),
        });
        await response.text();
        const challenge = response.headers.get('www-authenticate');
        if (response.status === 200) {
          expect(challenge).toBeNull();
          return;
        }
        expect([400, 401, 403]).toContain(response.status);
        expect(challenge).not.toBeNull();
        const challenges = challengesOf(challenge!);
        const schemes = challenges.map((one) => one.split(' ')[0]);

        // Which schemes the contract's tables name for this request.
        const noCredential = a.scheme === 'none' || (a.scheme === 'Bearer' && a.mode === 'required');
        const expectedSchemes =
          inUrl || noCredential
            ? a.mode === 'allowed'
              ? ['Bearer', 'DPoP']
              : ['DPoP']
            : a.scheme === 'DPoP' || a.token === 'bound'
              ? ['DPoP']
              : ['Bearer'];
        expect(schemes).toEqual(expectedSchemes);
        expect(response.status).toBe(inUrl ? 400 : noCredential ? 401 : response.status);
        for (const one of challenges) {
          if (one.startsWith('DPoP')) expect(one.endsWith(ALGS)).toBe(true);
          const metadata = one.includes(`resource_metadata="${METADATA}"`);
          expect(metadata).toBe(a.metadata);
          if (inUrl) expect(one).toContain('error="invalid_request"');
        }
        if (response.status === 403) expect(challenges.every((one) => one.includes('error="insufficient_scope"') && one.includes('scope="me"'))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
