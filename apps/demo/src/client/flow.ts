import { demoClient, refusalOf, type Refusal } from './demo-client.js';
import { printable } from './terminal-text.js';

const expect = (condition: boolean, what: string) => {
  if (!condition) throw new Error(`Unexpected: ${what}`);
};
/** A refusal as the walk-through prints it: `status message (code)`, the server's text escaped. */
const refused = (refusal: Refusal) => `${printable(refusal.status)} ${printable(refusal.message)} (${printable(refusal.code)})`;

/**
 * The client walk-through `npm run client` runs against a server at `baseUrl`: log in, call
 * the protected procedures, meet a missing scope, refresh, and see a reused refresh token
 * revoke its family. Each step is checked; an unexpected answer throws.
 *
 * @example
 * ```ts
 * await runClientFlow('http://127.0.0.1:3000', console.log);
 * ```
 */
export async function runClientFlow(baseUrl: string, log: (line: string) => void): Promise<void> {
  let token: string | undefined;
  const client = demoClient(baseUrl, () => token);
  // The refresh_token grant, as the confidential client demo-cli.
  const refresh = (refreshToken: string) =>
    client.auth.token.mutate({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'demo-cli', client_secret: 'demo-cli-secret' });

  log(`1. alice logs in through the tRPC mutation auth.token (client demo-cli, scope "me items")`);
  const alice = await client.auth.token.mutate({
    username: 'alice',
    password: 'wonderland',
    scope: 'me items',
    client_id: 'demo-cli',
    client_secret: 'demo-cli-secret',
  });
  log(`   ${printable(alice.token_type)} token for scope "${printable(alice.scope)}", expires in ${printable(alice.expires_in)} s`);
  token = alice.access_token;

  const me = await client.users.me.query();
  log(`2. users.me → ${printable(me.fullName)} <${printable(me.email)}>, may be granted: ${me.scopes.map(printable).join(', ')}`);
  const items = await client.users.items.query();
  log(`3. users.items → ${items.map((item) => printable(item.title)).join(', ')}`);

  log('4. bob logs in (public client, no scope asked: he gets what he may have)');
  const bob = await client.auth.token.mutate({ username: 'bob', password: 'builder' });
  log(`   granted scope "${printable(bob.scope)}"`);
  token = bob.access_token;
  const refusal = await refusalOf(client.users.items.query());
  expect(refusal.status === 403 && refusal.code === 'ERR_INSUFFICIENT_SCOPE', `users.items for bob: ${JSON.stringify(refusal)}`);
  log(`   users.items → ${refused(refusal)}`);
  log(`   WWW-Authenticate: ${printable(refusal.wwwAuthenticate)}`);

  log("5. alice's access token is refreshed with auth.token's refresh_token grant (the refresh token rotates)");
  const refreshed = await refresh(alice.refresh_token);
  expect(refreshed.refresh_token !== alice.refresh_token, 'the refresh token did not rotate');
  token = refreshed.access_token;
  log(`   new tokens for scope "${printable(refreshed.scope)}"; users.me → ${printable((await client.users.me.query()).username)}`);

  log('6. the spent refresh token is presented again: refused, and its whole family revoked');
  const reuse = await refusalOf(refresh(alice.refresh_token));
  expect(reuse.status === 400 && reuse.code === 'ERR_INVALID_GRANT', `reused refresh token: ${JSON.stringify(reuse)}`);
  log(`   old refresh token → ${refused(reuse)}`);
  const revoked = await refusalOf(refresh(refreshed.refresh_token));
  expect(revoked.code === 'ERR_INVALID_GRANT', `refresh token of a revoked family: ${JSON.stringify(revoked)}`);
  log(`   its successor → ${refused(revoked)}: alice must log in again`);
}
