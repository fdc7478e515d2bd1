import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { getOAuth2Error, readClientCredentials } from '../src/index.js';

const basic = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;
const noForm = { client_id: null, client_secret: null };

describe('readClientCredentials', () => {
  it.each([
    { name: 'no client authentication', header: undefined, form: noForm, expected: { clientId: null, clientSecret: null, method: 'none' } },
    { name: 'form fields', header: undefined, form: { client_id: 'app', client_secret: 'shh' }, expected: { clientId: 'app', clientSecret: 'shh', method: 'client_secret_post' } },
    { name: 'a public client in the form', header: undefined, form: { client_id: 'app', client_secret: null }, expected: { clientId: 'app', clientSecret: null, method: 'client_secret_post' } },
    { name: 'Basic', header: basic('app:shh'), form: noForm, expected: { clientId: 'app', clientSecret: 'shh', method: 'client_secret_basic' } },
    { name: 'Basic, scheme in any case', header: basic('app:shh').replace('Basic', 'bAsIc'), form: noForm, expected: { clientId: 'app', clientSecret: 'shh', method: 'client_secret_basic' } },
    { name: 'Basic, url-encoded parts', header: basic('my%20app:p%3Ass+word'), form: noForm, expected: { clientId: 'my app', clientSecret: 'p:ss word', method: 'client_secret_basic' } },
    { name: 'Basic, empty secret (null, as an empty form client_secret)', header: basic('app:'), form: noForm, expected: { clientId: 'app', clientSecret: null, method: 'client_secret_basic' } },
    { name: 'an empty Basic credential as none (Swagger UI)', header: basic(':'), form: noForm, expected: { clientId: null, clientSecret: null, method: 'none' } },
    { name: 'an empty Basic credential beside the form fields', header: basic(':'), form: { client_id: 'app', client_secret: 'shh' }, expected: { clientId: 'app', clientSecret: 'shh', method: 'client_secret_post' } },
    { name: 'a Bearer header is not client authentication', header: 'Bearer abc', form: { client_id: 'app', client_secret: null }, expected: { clientId: 'app', clientSecret: null, method: 'client_secret_post' } },
  ] as const)('reads $name', ({ header, form, expected }) => {
    expect(readClientCredentials(header === undefined ? {} : { authorization: header }, form)).toEqual(expected);
  });

  it.each([
    { name: 'not base64', header: 'Basic ***' },
    { name: 'no colon', header: basic('appshh') },
    { name: 'empty client id', header: basic(':shh') },
    { name: 'nothing after the scheme', header: 'Basic' },
    { name: 'bad percent-encoding', header: basic('app:%E0%A4%A') },
    { name: 'unpadded base64', header: 'Basic YXBwOnNoaA' },
    { name: 'not UTF-8', header: `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}` },
  ])('refuses $name with 401 invalid_client and WWW-Authenticate: Basic', ({ header }) => {
    const error = (() => { try { readClientCredentials(new Headers({ authorization: header }), noForm); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(TRPCError);
    expect(getOAuth2Error(error)).toMatchObject({ code: 'ERR_INVALID_CLIENT', status: 401, error: 'invalid_client', headers: { 'WWW-Authenticate': 'Basic' } });
  });

  it('reads a form client_id naming the Basic client as Basic alone (RFC 6749 §3.2.1)', () => {
    expect(readClientCredentials({ authorization: basic('my%20app:shh') }, { client_id: 'my app', client_secret: null })).toEqual({
      clientId: 'my app',
      clientSecret: 'shh',
      method: 'client_secret_basic',
    });
  });

  it.each([
    { name: 'a form client_secret', header: basic('app:shh'), form: { client_id: null, client_secret: 'shh' } },
    { name: 'a form client_id and client_secret', header: basic('app:shh'), form: { client_id: 'app', client_secret: 'shh' } },
    { name: 'a form client_id naming another client', header: basic('app:shh'), form: { client_id: 'other', client_secret: null } },
    { name: 'a form client_id naming the client by another spelling', header: basic('my%20app:shh'), form: { client_id: 'my%20app', client_secret: null } },
    { name: 'a form client_id beside a malformed Basic', header: 'Basic ***', form: { client_id: 'app', client_secret: null } },
  ])('refuses Basic with $name: 400 invalid_request, no challenge', ({ header, form }) => {
    const error = (() => { try { readClientCredentials({ authorization: header }, form); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(TRPCError);
    expect(getOAuth2Error(error)).toMatchObject({ code: 'ERR_INVALID_REQUEST', status: 400, error: 'invalid_request' });
    expect(getOAuth2Error(error)?.headers).not.toHaveProperty('WWW-Authenticate');
  });
});
