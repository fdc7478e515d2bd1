import { parseArgs } from 'node:util';
import { TRPCClientError } from '@trpc/client';
import { ResponseBodyError, type DPoPHandle } from 'oauth4webapi';
import { browserLogin, refreshAtAuthorizationServer, revokeAtAuthorizationServer } from './authorization-code-login.js';
import { demoClient, refusalOf } from './demo-client.js';
import { dpopHandle, newDPoPKey } from './dpop.js';
import { passwordLogin, refreshAtTokenEndpoint } from './password-login.js';
import { runClientFlow } from './flow.js';
import { watchItems, type StreamTransport } from './item-stream.js';
import { serverUrlProblem } from './server-url.js';
import { clearSession, expiresAtOf, loadSession, saveSession, sessionPath, withSessionLock, type ClientSession } from './session.js';
import { printable, printableJson } from './terminal-text.js';

/**
 * The client's own credentials at the demo's token endpoint (a confidential client).
 *
 * @example
 * ```ts
 * client.auth.token.mutate({ username, password, ...CLI_CREDENTIALS });
 * ```
 */
export const CLI_CREDENTIALS = { client_id: 'demo-cli', client_secret: 'demo-cli-secret' } as const;

/**
 * The text of `--help`.
 *
 * @example
 * ```ts
 * console.log(HELP);
 * ```
 */
export const HELP = `Usage: npm run client -w apps/demo -- <command> [options]

The trpc-oauth2 demo client: logs in to the demo server and calls its API through the typed tRPC client.

Commands:
  login --user NAME [--password PW] [--scope "me items"] [--bearer]
                       log in with the password flow at the demo's token endpoint
                       (the password can also come from DEMO_PASSWORD)
  login --browser [--scope "me items"] [--no-open] [--bearer]
                       log in through the browser: the authorization-code flow with PKCE
                       at the authorization server (/oidc), back to a loopback port
                       Either way the tokens are bound to a DPoP key (RFC 9449) the session
                       keeps, and every request carries a proof of it; --bearer: plain
                       bearer tokens instead
  call <procedure>     call users.me or users.items with the session's access token
  watch [--transport ws|sse] [--count N]
                       print your items as they are added (users.watchItems), over
                       WebSockets (default) or Server-Sent Events; the access token is
                       refreshed before it expires and the stream resumes where it was
  refresh              new tokens from the refresh token (it rotates)
  logout               revoke the refresh token (RFC 7009) and forget the session
  status               who is logged in, which way, with which scopes
  walkthrough          the scripted tour: log in, missing scope, refresh, reuse detection

Options:
  --url URL            the demo server to log in to or walk through (default: DEMO_URL,
                       else http://127.0.0.1:3000): https, or http on a loopback host only
                       (127.0.0.1, [::1], localhost); the other commands use the server the
                       session logged in to
  --help, -h           this text

The session is kept in DEMO_SESSION, else ~/.trpc-oauth2-demo/session.json (owner-only).
Demo users: alice / wonderland (scopes me, items), bob / builder (scope me).`;

/**
 * What the command-line client reads and writes: its output, its environment, and how it opens
 * a URL in a browser (tests hand it one that logs in over HTTP).
 *
 * @example
 * ```ts
 * const io: CliIo = { out: console.log, err: console.error, env: process.env, openBrowser: (url) => console.log(url) };
 * ```
 */
export interface CliIo {
  /** Stops a command that runs until stopped (`watch`): Ctrl-C. */
  signal?: AbortSignal;
  out: (line: string) => void;
  err: (line: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  openBrowser: (url: string) => void | Promise<void>;
}

/** Procedures `call` knows, each through the typed client. */
const PROCEDURES = {
  'users.me': (client: ReturnType<typeof demoClient>) => client.users.me.query(),
  'users.items': (client: ReturnType<typeof demoClient>) => client.users.items.query(),
} as const;
const isProcedure = (name: string): name is keyof typeof PROCEDURES => Object.hasOwn(PROCEDURES, name);

class UsageError extends Error {}

/** A connection refused or reset anywhere in an error's causes: no server answers. */
function noServer(error: unknown): boolean {
  for (let cause = error; cause instanceof Object; cause = (cause as { cause?: unknown }).cause) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EHOSTUNREACH') return true;
    if (cause instanceof AggregateError && cause.errors.some(noServer)) return true;
  }
  return false;
}

const now = () => Math.floor(Date.now() / 1000);

/** Revokes a refresh token at the demo's revocation endpoint (RFC 7009), `auth.revoke` over tRPC. */
async function revokeAtTokenEndpoint(url: string, token: string): Promise<void> {
  await demoClient(url).auth.revoke.mutate({ token, token_type_hint: 'refresh_token', ...CLI_CREDENTIALS });
}

/**
 * Runs one command of the command-line client (`argv` without `node` and the script) and
 * answers its exit code: 0 done, 1 failed (the server refused, or none answers), 2 a usage error.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), { out: console.log, err: console.error, env: process.env, openBrowser });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        scope: { type: 'string' },
        browser: { type: 'boolean' },
        bearer: { type: 'boolean' },
        'no-open': { type: 'boolean' },
        transport: { type: 'string' },
        count: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    io.out(HELP);
    return 0;
  }
  const given = values.url ?? io.env.DEMO_URL ?? 'http://127.0.0.1:3000';
  // A typo in the URL is a usage error, not a server that refused; so is plain http over a network.
  const problem = serverUrlProblem(given);
  if (problem !== null) {
    const option = values.url === undefined ? 'DEMO_URL' : '--url';
    io.err(
      problem === 'invalid'
        ? `${option} ${JSON.stringify(given)} is not a valid URL: give one such as http://127.0.0.1:3000.`
        : problem === 'credentials'
          ? // Not echoed: it holds a password.
            `${option} must not carry credentials (user:password@): give one such as http://127.0.0.1:3000.`
          : `${option} ${JSON.stringify(given)} is plain http to a host that is not this machine, which would send passwords and tokens in the clear: use https (http only on 127.0.0.1, [::1] or localhost).`,
    );
    return 2;
  }
  const url = given.replace(/\/+$/, '');
  const path = sessionPath(io.env);
  // A session's commands go to the server it logged in to, not to --url.
  let target = url;
  try {
    if (SESSION_COMMANDS.has(command)) {
      const session = await loadSession(path);
      if (session !== null) {
        if (values.url !== undefined && url !== session.url) {
          throw new UsageError(`This session is with ${session.url}: log in with --url ${url} to use that server.`);
        }
        target = session.url;
        checkSessionUrl(session);
      }
    }
    switch (command) {
      case 'login':
        await login(url, path, values, io);
        return 0;
      case 'call':
        return await call(path, rest[0], io);
      case 'refresh':
        await refresh(path, io);
        return 0;
      case 'watch':
        await watch(path, values, io);
        return 0;
      case 'logout':
        await logout(path, io);
        return 0;
      case 'status':
        await status(path, io);
        return 0;
      case 'walkthrough':
        await runClientFlow(url, io.out);
        io.out('done: every step answered as expected');
        return 0;
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(command)}.`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message} See --help.`);
      return 2;
    }
    if (noServer(error)) {
      io.err(`No server answers at ${target}: start it with \`npm start\`${target === url ? ' (or pass --url)' : ''}.`);
      return 1;
    }
    // What the server said (and any message that may quote it) is printed with its control characters escaped.
    if (error instanceof ResponseBodyError) io.err(`The server refused: ${printable(error.error_description ?? error.error)}`);
    else io.err(error instanceof TRPCClientError ? `The server refused: ${printable(error.message)}` : printable(error instanceof Error ? error.message : error));
    return 1;
  }
}

/** The commands that act on the session, at the server it logged in to. */
const SESSION_COMMANDS = new Set(['call', 'watch', 'refresh', 'logout']);

/** A session file edited by hand (or by someone else) must not send its tokens in the clear. */
function checkSessionUrl(session: ClientSession): void {
  if (serverUrlProblem(session.url) !== null) {
    throw new Error(`This session is with ${printable(JSON.stringify(session.url))}, which is not https (nor http on a loopback host): log in again.`);
  }
}

async function login(
  url: string,
  path: string,
  values: {
    user?: string | undefined;
    password?: string | undefined;
    scope?: string | undefined;
    browser?: boolean | undefined;
    'no-open'?: boolean | undefined;
    bearer?: boolean | undefined;
  },
  io: CliIo,
): Promise<void> {
  const scope = values.scope ?? 'me items';
  // A new key for each login: the session keeps it, the tokens are bound to it.
  const key = values.bearer ? undefined : await newDPoPKey();
  const bound = key === undefined ? {} : { dpop: key };
  const kind = key === undefined ? '' : ' (DPoP-bound tokens)';
  if (values.browser) {
    // A handle of its own: oauth4webapi keeps a nonce per origin, and the demo's API asks for its own.
    const tokens = await browserLogin(
      url,
      scope,
      async (authorizeUrl) => {
        io.out(`Open this URL in a browser to log in:\n  ${authorizeUrl}`);
        if (!values['no-open']) await io.openBrowser(authorizeUrl);
      },
      key === undefined ? undefined : await dpopHandle(key),
    );
    const session: ClientSession = {
      ...bound,
      url,
      flow: 'authorization_code',
      username: null,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      scope: tokens.scope,
      expiresAt: expiresAtOf(tokens.expiresIn, now()),
    };
    await withSessionLock(path, () => saveSession(path, session));
    const me = await demoClient(url, () => session.accessToken, await handleOf(session)).users.me.query();
    // Name the user in the session, as a password login does, so that `status` says who it is.
    await withSessionLock(path, async () => {
      const saved = await loadSession(path);
      if (saved !== null && saved.accessToken === session.accessToken) await saveSession(path, { ...saved, username: me.username });
    });
    io.out(`Logged in through the authorization server as ${printable(me.username)}, scope "${printable(tokens.scope)}"${kind}.`);
    return;
  }
  if (values.user === undefined) throw new UsageError('login needs --user NAME (or --browser).');
  const password = values.password ?? io.env.DEMO_PASSWORD;
  if (password === undefined) throw new UsageError('login needs --password PW (or DEMO_PASSWORD in the environment).');
  const tokens = await passwordLogin(url, { username: values.user, password, scope }, key === undefined ? undefined : await dpopHandle(key));
  const session: ClientSession = {
    url,
    flow: 'password',
    username: values.user,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? null,
    scope: tokens.scope ?? scope,
    expiresAt: expiresAtOf(tokens.expires_in, now()),
    ...bound,
  };
  // Under the lock: a refresh of the session this login replaces must not save its tokens over it.
  await withSessionLock(path, () => saveSession(path, session));
  io.out(`Logged in as ${values.user} with the password flow, scope "${printable(tokens.scope ?? scope)}"${kind}.`);
}

/** oauth4webapi's DPoP handle of the session's key, when its tokens are bound to one. */
async function handleOf(session: ClientSession): Promise<DPoPHandle | undefined> {
  return session.dpop === undefined ? undefined : dpopHandle(session.dpop);
}

async function requireSession(path: string): Promise<ClientSession> {
  const session = await loadSession(path);
  if (session === null) throw new UsageError('Not logged in: run `login` first.');
  return session;
}

async function call(path: string, procedure: string | undefined, io: CliIo): Promise<number> {
  const known = Object.keys(PROCEDURES).join(' or ');
  if (procedure === undefined) throw new UsageError(`call needs a procedure: ${known}.`);
  if (!isProcedure(procedure)) throw new UsageError(`call cannot call ${JSON.stringify(procedure)}: it calls ${known}.`);
  let session = await requireSession(path);
  const callWith = async (tokens: ClientSession) => PROCEDURES[procedure](demoClient(tokens.url, () => tokens.accessToken, await handleOf(tokens)));
  try {
    let result: unknown;
    try {
      result = await callWith(session);
    } catch (error) {
      // The token's lifetime is the server's to say, and it may not have (no `expires_in`), or
      // it ran out: refused as `invalid_token`, it is refreshed, and the call made once more.
      if (session.refreshToken === null || !(await tokenRefused(error))) throw error;
      // A refresh that fails leaves the server's refusal of the call as the answer: it is what
      // the user asked about, and says what to do (log in again).
      session = await refreshShared(path, session).catch(() => {
        throw error;
      });
      result = await callWith(session);
    }
    io.out(printableJson(result));
    return 0;
  } catch (error) {
    if (!(error instanceof TRPCClientError) || noServer(error)) throw error;
    const refusal = await refusalOf(Promise.reject(error));
    io.err(`${procedure} → ${printable(refusal.status)} ${printable(refusal.message)} (${printable(refusal.code)})`);
    if (refusal.wwwAuthenticate !== null) io.err(`WWW-Authenticate: ${printable(refusal.wwwAuthenticate)}`);
    return 1;
  }
}

/** Whether a call failed because the server refused its access token: 401 `invalid_token` (in either scheme). */
async function tokenRefused(error: unknown): Promise<boolean> {
  if (!(error instanceof TRPCClientError) || noServer(error)) return false;
  const refusal = await refusalOf(Promise.reject(error));
  return refusal.status === 401 && /(?:^|[\s,])error="invalid_token"/.test(refusal.wwwAuthenticate ?? '');
}

async function watch(path: string, values: { transport?: string | undefined; count?: string | undefined }, io: CliIo): Promise<void> {
  const transport = values.transport ?? 'ws';
  if (transport !== 'ws' && transport !== 'sse') throw new UsageError('watch --transport is ws or sse.');
  const count = values.count === undefined ? undefined : Number(values.count);
  if (count !== undefined && !(Number.isSafeInteger(count) && count > 0)) throw new UsageError('watch --count is a positive whole number.');
  let session = await requireSession(path);
  io.out(`Watching your items over ${transport === 'ws' ? 'WebSockets' : 'Server-Sent Events'}${count === undefined ? ' (Ctrl-C to stop)' : ''}:`);
  await watchItems({
    url: session.url,
    transport: transport as StreamTransport,
    token: () => session,
    ...(session.dpop === undefined ? {} : { dpop: await dpopHandle(session.dpop) }),
    refresh: async () => {
      session = await refreshShared(path, session);
      return session;
    },
    out: io.out,
    ...(count === undefined ? {} : { count }),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
  });
}

async function refresh(path: string, io: CliIo): Promise<void> {
  const next = await refreshShared(path, await requireSession(path));
  const validity = next.expiresAt === null ? 'their lifetime not given by the server' : `valid for ${next.expiresAt - now()} s`;
  io.out(`Refreshed: new tokens for scope "${printable(next.scope)}", ${validity}.`);
}

/** Whether two sessions are one login: the same server, way, user and DPoP key (their tokens may differ). */
const sameLogin = (a: ClientSession, b: ClientSession) =>
  a.url === b.url && a.flow === b.flow && a.username === b.username && JSON.stringify(a.dpop?.publicJwk) === JSON.stringify(b.dpop?.publicJwk);

/**
 * New tokens for the session this command read (`seen`), saved to `path`, with other commands
 * (other processes too) using the same session file: under the session's lock, the session is
 * read again, and if another command renewed it since `seen` was read, its tokens are used (while
 * they last) rather than refreshing again with a refresh token already spent, which the server
 * would take for a stolen one and revoke the whole family (the user logged out for running two
 * commands at once). Fails when another command logged out, or in again, meanwhile.
 */
async function refreshShared(path: string, seen: ClientSession): Promise<ClientSession> {
  return withSessionLock(path, async () => {
    const stored = await loadSession(path);
    if (stored === null) throw new Error('Logged out meanwhile (by another command): run `login` again.');
    if (!sameLogin(stored, seen)) throw new Error('Logged in again meanwhile (by another command): run this command again.');
    const renewed = stored.refreshToken !== seen.refreshToken || stored.accessToken !== seen.accessToken;
    // Tokens of unknown lifetime (`expiresAt: null`) another command just got are taken as good:
    // the server says when they are not, and the caller asks again then.
    if (renewed && (stored.expiresAt === null || stored.expiresAt > now())) return stored;
    const next = await refreshedSession(stored);
    await saveSession(path, next);
    return next;
  });
}

/** The session with new tokens from its refresh token (which rotates), at the server that issued them. */
async function refreshedSession(session: ClientSession): Promise<ClientSession> {
  if (session.refreshToken === null) throw new Error('This session has no refresh token: log in again.');
  let next: ClientSession;
  const dpop = await handleOf(session);
  if (session.flow === 'authorization_code') {
    const tokens = await refreshAtAuthorizationServer(session.url, session.refreshToken, dpop);
    next = { ...session, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? session.refreshToken, scope: tokens.scope, expiresAt: expiresAtOf(tokens.expiresIn, now()) };
  } else {
    const tokens = await refreshAtTokenEndpoint(session.url, session.refreshToken, dpop);
    next = {
      ...session,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token ?? session.refreshToken,
      scope: tokens.scope ?? session.scope,
      expiresAt: expiresAtOf(tokens.expires_in, now()),
    };
  }
  return next;
}

async function logout(path: string, io: CliIo): Promise<void> {
  if ((await loadSession(path)) === null) {
    io.out('Not logged in.');
    return;
  }
  // Under the session's lock: the refresh token revoked is the current one (not one a refresh
  // running meanwhile rotates away), and no refresh saves tokens back once the session is forgotten.
  const loggedOut = await withSessionLock(path, async () => {
    const session = await loadSession(path);
    if (session === null) return false;
    checkSessionUrl(session);
    if (session.refreshToken !== null) {
      if (session.flow === 'authorization_code') await revokeAtAuthorizationServer(session.url, session.refreshToken);
      else await revokeAtTokenEndpoint(session.url, session.refreshToken);
    }
    await clearSession(path);
    return true;
  });
  io.out(loggedOut ? 'Logged out: the refresh token is revoked and the session forgotten (the access token expires on its own).' : 'Not logged in.');
}

async function status(path: string, io: CliIo): Promise<void> {
  const session = await loadSession(path);
  if (session === null) {
    io.out('Not logged in.');
    return;
  }
  const left = session.expiresAt === null ? null : session.expiresAt - now();
  const who = printable(session.username ?? 'the user of the authorization server');
  const way = session.flow === 'password' ? 'the password flow' : 'the authorization server (authorization code + PKCE)';
  const kind = session.dpop === undefined ? 'bearer tokens' : 'DPoP-bound tokens';
  io.out(
    `Logged in at ${printable(session.url)} as ${who} through ${way}, scope "${printable(session.scope)}", ${kind}; the access token ${
      left === null
        ? 'has a lifetime the server did not give: it is refreshed when the server refuses it'
        : left > 0
          ? `expires in ${left} s`
          : 'has expired: run refresh'
    }.`,
  );
}
