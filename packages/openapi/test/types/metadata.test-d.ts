import { initTRPC } from '@trpc/server';
import type { AuthorizationServerMetadata } from '@trpc-oauth2/core/token-endpoint';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { expectTypeOf } from 'vitest';
import {
  AuthorizationServerMismatchError,
  ResourceAudienceMismatchError,
  authorizationServerMetadataPath,
  protectedResourceMetadata,
  resourceMetadataUrl,
  type ProtectedResourceMetadata,
  type ProtectedResourceMetadataOptions,
  type ResourceMetadataOption,
} from '../../src/index.js';
import { createOAuth2OpenApiFetchHandler } from '../../src/adapters/fetch.js';
import { createOAuth2HTTPHandler } from '../../src/adapters/standalone.js';
import { createDocsFetchHandler, SWAGGER_UI_ASSETS, type DocsOptions, type SwaggerUiAsset } from '../../src/docs/index.js';

// RFC 9728 protected resource metadata, read from the router (docs/contract.md#protected-resource-metadata).
const t = initTRPC.context<{ req: Request }>().meta<OpenApiMeta>().create();
const router = t.router({ hello: t.procedure.query(() => 'hi') });
const options = { resource: 'https://api.example', authorizationServers: ['https://as.example'] } as const;

const metadata = protectedResourceMetadata(router, options);
expectTypeOf(metadata).toEqualTypeOf<ProtectedResourceMetadata>();
expectTypeOf(metadata.authorization_servers).toEqualTypeOf<readonly string[]>();
expectTypeOf(metadata.bearer_methods_supported).toEqualTypeOf<readonly ['header']>();
expectTypeOf(metadata.dpop_bound_access_tokens_required).toEqualTypeOf<boolean | undefined>();
// At least one authorization server: a client must learn where to get a token.
expectTypeOf<ProtectedResourceMetadataOptions['authorizationServers']>().toEqualTypeOf<readonly [string, ...string[]]>();
// @ts-expect-error no authorization server named
protectedResourceMetadata(router, { resource: 'https://api.example', authorizationServers: [] });
// @ts-expect-error the resource is required
protectedResourceMetadata(router, { authorizationServers: ['https://as.example'] });
// A verifier that names no audience: refused, or trusted on purpose; nothing else.
expectTypeOf<ProtectedResourceMetadataOptions['unnamedAudience']>().toEqualTypeOf<'refuse' | 'trust' | undefined>();
protectedResourceMetadata(router, { ...options, unnamedAudience: 'trust' });
// @ts-expect-error 'refuse' or 'trust'
protectedResourceMetadata(router, { ...options, unnamedAudience: 'ignore' });

// The handlers serve the metadata at its well-known paths when given it.
expectTypeOf<ResourceMetadataOption>().toEqualTypeOf<{ resourceMetadata?: ProtectedResourceMetadata; authorizationServerMetadata?: AuthorizationServerMetadata }>();
const createContext = ({ req }: { req: Request }) => ({ req });
void createOAuth2OpenApiFetchHandler({ basePath: '/api', router, req: new Request('https://api.example/api/hello'), createContext, resourceMetadata: metadata });
createOAuth2HTTPHandler({ router, createContext: () => ({ req: new Request('https://api.example/') }), resourceMetadata: metadata });
// @ts-expect-error the metadata is the object protectedResourceMetadata builds, not its URL
createOAuth2HTTPHandler({ router, createContext: () => ({ req: new Request('https://api.example/') }), resourceMetadata: resourceMetadataUrl('https://api.example') });
expectTypeOf(resourceMetadataUrl('https://api.example')).toEqualTypeOf<string>();
expectTypeOf(authorizationServerMetadataPath('https://as.example')).toEqualTypeOf<string>();

// The mismatch errors carry stable codes and what is at fault.
declare const server: AuthorizationServerMismatchError;
expectTypeOf<AuthorizationServerMismatchError['code']>().toEqualTypeOf<'ERR_AUTHORIZATION_SERVER_MISMATCH'>();
expectTypeOf(server.issuers).toEqualTypeOf<readonly string[]>();
declare const audience: ResourceAudienceMismatchError;
expectTypeOf<ResourceAudienceMismatchError['code']>().toEqualTypeOf<'ERR_RESOURCE_AUDIENCE_MISMATCH'>();
expectTypeOf(audience.audience).toEqualTypeOf<string | null>();
expectTypeOf(audience).toExtend<Error>();

// The docs: paths are absolute, the files are swagger-ui-dist's.
expectTypeOf<SwaggerUiAsset>().toEqualTypeOf<keyof typeof SWAGGER_UI_ASSETS>();
expectTypeOf<'swagger-ui-bundle.js'>().toExtend<SwaggerUiAsset>();
const document = { openapi: '3.1.0', info: { title: 'API', version: '1' }, paths: {} };
// @ts-expect-error the docs path starts with a slash
const relative: DocsOptions = { documents: [{ url: '/openapi.json', document }], path: 'docs' };
void relative;
createDocsFetchHandler({ documents: [{ url: '/openapi.json', document }], assets: async (file) => {
  expectTypeOf(file).toEqualTypeOf<SwaggerUiAsset>();
  return null;
} });
// @ts-expect-error an asset is bytes, a stream, text, or null when missing
createDocsFetchHandler({ documents: [{ url: '/openapi.json', document }], assets: async () => 404 });

// The stable codes of the two mismatch errors stay their literals when read as values (a
// variable, an array, a generic call), as SecuritySchemeConflictError's does (api.test-d.ts):
// declared without `as const`, a widening literal read as a value is `string`.
expectTypeOf(server.code).toEqualTypeOf<'ERR_AUTHORIZATION_SERVER_MISMATCH'>();
expectTypeOf(audience.code).toEqualTypeOf<'ERR_RESOURCE_AUDIENCE_MISMATCH'>();
const codes = [server.code, audience.code];
expectTypeOf(codes).toEqualTypeOf<('ERR_AUTHORIZATION_SERVER_MISMATCH' | 'ERR_RESOURCE_AUDIENCE_MISMATCH')[]>();
