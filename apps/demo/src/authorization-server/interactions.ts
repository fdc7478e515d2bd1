import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { clientAddress } from '../auth/login-throttle/client-address.js';
import { tooManyAttemptsText } from '../auth/login-throttle/too-many-attempts-error.js';
import type { LoginThrottle } from '../auth/login-throttle/login-throttle.js';
import { DEMO_SCOPES, isDemoScope } from '../auth/scopes.js';
import { faultOf } from '../log.js';
import { BODY_TOO_LARGE, CLIENT_GONE, closeSoonIfUnread, readBody } from '../request-body.js';
import { DATABASE_RETRY_AFTER_SECONDS, databaseFaultOf } from '../store/database.js';
import type { UserStore } from '../store/users.js';
import { isDemoClient } from './clients.js';
import { consentPage, errorPage, loginPage, PAGE_CSP, pageCsp, STYLESHEET, STYLESHEET_PATH, unavailablePage } from './pages.js';

/**
 * Where the interaction pages live: `/interaction/<uid>` shows the login or the consent page,
 * and its forms post to `/interaction/<uid>/login`, `/consent` and `/abort`, from those pages only
 * (a post a browser says came from another origin is a 403).
 *
 * @example
 * ```ts
 * new Provider(issuer, { interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` } });
 * ```
 */
export const INTERACTION_PATH = '/interaction/';

// A login form is two short fields: anything longer is not one.
const MAX_FORM_BYTES = 4 * 1024;

/**
 * What the interaction pages need: the provider whose interactions they finish, the demo's
 * users (the same store and password check as the token endpoint) and its login throttle.
 *
 * @example
 * ```ts
 * const pages = interactionRoutes({ provider, users, throttle, audience: 'urn:trpc-oauth2:demo:api' });
 * ```
 */
export interface InteractionRouteOptions {
  provider: Provider;
  users: UserStore;
  throttle: LoginThrottle;
  /** The API's resource indicator: the scopes granted on the consent page are for it. */
  audience: string;
  /** Every resource indicator scopes may be granted for (the API's audience among them). */
  resources?: readonly string[];
}

class FormError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Finishes the interaction as `provider.interactionFinished` does (303 to where the authorization
 * resumes), with the path alone as `Location`: the provider writes its issuer's origin there, and
 * a browser that came by another name of this server (`localhost` for an issuer at `127.0.0.1`)
 * holds the interaction's cookies for that name only, so it must resume on the host it is on.
 */
async function finishInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  result: InteractionResults,
  mergeWithLastSubmission: boolean,
): Promise<void> {
  const returnTo = new URL(await provider.interactionResult(req, res, result, { mergeWithLastSubmission }));
  res.writeHead(303, { location: `${returnTo.pathname}${returnTo.search}`, 'content-length': '0' }).end();
}

const sendHtml = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) => {
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(html),
      'content-security-policy': PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      ...headers,
    })
    .end(html);
};

/**
 * Whether the client went away before its request had all arrived (it closed the connection
 * mid-body): the client's doing, not a fault of the server, so nothing is answered or logged.
 */
const clientLeft = (req: IncomingMessage): boolean => req.destroyed && !req.complete;

/**
 * Whether a post comes from a page of this origin, as the browser says: `Sec-Fetch-Site:
 * same-origin`, or (a browser that does not send it) an `Origin` naming the host the request is
 * for or the issuer's origin (the public URL, in front of a proxy that rewrites `Host`). A request with neither comes from no browser's page, so no one's cookies ride on it
 * unasked; an `Origin` of `null` (a sandboxed frame, a redirect across origins) is not this origin.
 */
function fromThisOrigin(req: IncomingMessage, issuerOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return url.host === req.headers.host || url.origin === issuerOrigin;
}

/** The answer to a form posted from another origin: 403, nothing of it read. */
const refuseCrossOrigin = async (): Promise<void> => {
  throw new FormError(403, 'This form was not sent from its own page: start again from the application.');
};

/** Thrown by {@link readForm} when the client went away mid-form. */
class ClientGoneError extends Error {}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new FormError(415, 'The form must be sent as application/x-www-form-urlencoded.');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_FORM_BYTES) throw new FormError(413, 'The form is too large.');
  const body = await readBody(req, MAX_FORM_BYTES, true);
  if (body === CLIENT_GONE) throw new ClientGoneError();
  if (body === BODY_TOO_LARGE) throw new FormError(413, 'The form is too large.');
  return new URLSearchParams(body.toString('utf8'));
}

/**
 * The login and consent pages of the authorization server, written on oidc-provider's
 * interaction API. Login checks the username and password against the demo's users, counted by
 * the same throttle as the password grant. Consent grants each requested scope the user may
 * have and refuses the others, so bob, asked for `me items`, gets a token for `me` only.
 * Answers `true` when the request was one of its routes.
 *
 * @example
 * ```ts
 * const pages = interactionRoutes({ provider, users, throttle, audience });
 * http.createServer((req, res) => pages(req, res, new URL(req.url!, 'http://x').pathname) || notFound(res));
 * ```
 */
export function interactionRoutes({
  provider,
  users,
  throttle,
  audience,
  resources,
}: InteractionRouteOptions): (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean {
  // The client as its pages name it: a client that registered itself (RFC 7591) is said to be one.
  const clientOf = async (clientId: unknown) => {
    const client = typeof clientId === 'string' ? await provider.Client.find(clientId) : undefined;
    return {
      clientName: client?.clientName ?? (typeof clientId === 'string' ? clientId : 'An application'),
      registered: typeof clientId === 'string' && !isDemoClient(clientId),
    };
  };
  // The pages' policy lets their forms lead back to the client's redirect URI (validated by the
  // provider when the authorization began).
  const cspFor = (params: { redirect_uri?: unknown }) => ({ 'content-security-policy': pageCsp(params.redirect_uri) });
  const requestedScopes = (scope: unknown) =>
    [...new Set(typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [])].filter((name) => name !== 'openid' && name !== 'offline_access');

  const show = async (req: IncomingMessage, res: ServerResponse) => {
    const { uid, prompt, params, session } = await provider.interactionDetails(req, res);
    const client = await clientOf(params.client_id);
    if (prompt.name === 'login') return sendHtml(res, 200, loginPage({ uid, ...client, error: null, username: '' }), cspFor(params));
    const user = session?.accountId === undefined ? null : await users.find(session.accountId);
    if (user === null) return sendHtml(res, 400, errorPage('This login cannot go on', 'Start again from the application.'));
    const scopes = requestedScopes(params.scope).map((scope) => ({
      name: scope,
      description: isDemoScope(scope) ? DEMO_SCOPES[scope] : 'Unknown scope',
      allowed: user.scopes.includes(scope),
    }));
    return sendHtml(res, 200, consentPage({ uid, ...client, username: user.username, scopes }), cspFor(params));
  };

  const login = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name !== 'login') throw new FormError(400, 'This step does not ask for a login.');
    const form = await readForm(req);
    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    const again = async (status: number, error: string, headers: Record<string, string> = {}) =>
      sendHtml(res, status, loginPage({ uid: details.uid, ...(await clientOf(details.params.client_id)), error, username }), {
        ...cspFor(details.params),
        ...headers,
      });
    const attempt = await throttle.begin(username, clientAddress(req.socket));
    if (!attempt.allowed) {
      return again(429, `${tooManyAttemptsText(attempt.reason)}: try again in ${attempt.retryAfterSeconds} seconds.`, {
        'retry-after': String(attempt.retryAfterSeconds),
      });
    }
    let user;
    try {
      user = await users.authenticate(username, password);
    } catch (error) {
      await attempt.settle('refused-otherwise');
      throw error;
    }
    await attempt.settle(user === null ? 'wrong-credentials' : 'granted');
    if (user === null) return again(401, 'Incorrect username or password.');
    const result: InteractionResults = { login: { accountId: user.username } };
    return finishInteraction(provider, req, res, result, false);
  };

  const consent = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details;
    if (prompt.name !== 'consent' || session?.accountId === undefined) throw new FormError(400, 'This step does not ask for consent.');
    await readForm(req);
    const user = await users.find(session.accountId);
    if (user === null) throw new FormError(400, 'This account no longer exists.');
    const grant =
      details.grantId === undefined
        ? new provider.Grant({ accountId: user.username, clientId: String(params.client_id) })
        : ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId: user.username, clientId: String(params.client_id) }));
    const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    // The API's scopes are among the provider's scopes too (its metadata lists them), so they come
    // here as well as for their resource: granted the same way, only those this user may have.
    // They carry no claims, and the tokens for the API take their scopes from the resource's grant.
    const oidcScopes = missing.missingOIDCScope ?? [];
    const oidcAllowed = oidcScopes.filter((scope) => !isDemoScope(scope) || user.scopes.includes(scope));
    const oidcRefused = oidcScopes.filter((scope) => !oidcAllowed.includes(scope));
    if (oidcAllowed.length > 0) grant.addOIDCScope(oidcAllowed.join(' '));
    if (oidcRefused.length > 0) grant.rejectOIDCScope(oidcRefused.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      // Only the API's scopes that this user may have; the rest are refused, not asked again.
      const allowed = (resources ?? [audience]).includes(indicator) ? scopes.filter((scope) => user.scopes.includes(scope)) : [];
      const refused = scopes.filter((scope) => !allowed.includes(scope));
      if (allowed.length > 0) grant.addResourceScope(indicator, allowed.join(' '));
      if (refused.length > 0) grant.rejectResourceScope(indicator, refused.join(' '));
    }
    const grantId = await grant.save();
    return finishInteraction(provider, req, res, { consent: { grantId } }, true);
  };

  const abort = async (req: IncomingMessage, res: ServerResponse) => {
    await provider.interactionDetails(req, res);
    await readForm(req);
    return finishInteraction(provider, req, res, { error: 'access_denied', error_description: 'The user cancelled or denied the request' }, false);
  };

  const routes: Record<string, { method: 'GET' | 'POST'; run: (req: IncomingMessage, res: ServerResponse) => Promise<void> }> = {
    '': { method: 'GET', run: show },
    login: { method: 'POST', run: login },
    consent: { method: 'POST', run: consent },
    abort: { method: 'POST', run: abort },
  };

  return (req, res, pathname) => {
    if (!pathname.startsWith(INTERACTION_PATH)) return false;
    if (pathname === STYLESHEET_PATH) {
      // A file: GET, and HEAD (its headers without the content).
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendHtml(res, 405, errorPage('Method not allowed', 'Use GET.'), { allow: 'GET, HEAD' });
        return true;
      }
      res.writeHead(200, {
        'content-type': 'text/css; charset=utf-8',
        'content-length': Buffer.byteLength(STYLESHEET),
        'x-content-type-options': 'nosniff',
        'cache-control': 'public, max-age=3600',
      });
      res.end(req.method === 'HEAD' ? undefined : STYLESHEET);
      return true;
    }
    const [uid, step = '', ...rest] = pathname.slice(INTERACTION_PATH.length).split('/');
    const route = Object.hasOwn(routes, step) && rest.length === 0 && uid ? routes[step] : undefined;
    if (route === undefined) return false;
    if (req.method !== route.method && !(route.method === 'GET' && req.method === 'HEAD')) {
      sendHtml(res, 405, errorPage('Method not allowed', `Use ${route.method}.`), { allow: route.method === 'GET' ? 'GET, HEAD' : route.method });
      return true;
    }
    // A form of another origin (login CSRF: an attacker's page posting its own credentials into
    // the victim's interaction) is refused before anything of it is read. The interaction's cookie
    // is `SameSite=Lax`, which another origin of the same site (another port of the host) still
    // gets, so the cookie alone does not say the form is this page's.
    const run = route.method === 'POST' && !fromThisOrigin(req, new URL(provider.issuer).origin) ? refuseCrossOrigin : route.run;
    run(req, res).catch((error: unknown) => {
      // A client that left mid-form (its body cut short: `aborted`, ECONNRESET) gets no answer and is not logged.
      if (error instanceof ClientGoneError || clientLeft(req)) return void res.destroy();
      if (res.headersSent) return void res.destroy();
      if (error instanceof FormError) {
        // A form refused before it had all arrived (413): the rest is dropped, for a moment.
        closeSoonIfUnread(req, res);
        return sendHtml(res, error.status, errorPage('This request cannot be served', error.message));
      }
      // oidc-provider's own refusals (an unknown or expired interaction, no cookie) are the client's.
      const status = (error as { statusCode?: number }).statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return sendHtml(res, status, errorPage('This login has expired or is unknown', 'Start again from the application.'));
      }
      // A database that cannot be reached (down, restarting, not answering in time) is not a bug:
      // 503 with `Retry-After`, as the authorization server's own routes answer it. The
      // interaction is kept in the database, so the same page works again once it is back.
      const unavailable = databaseFaultOf(error);
      console.error(`interaction failed: ${faultOf(unavailable ?? error)}`);
      if (unavailable !== undefined) {
        return sendHtml(res, 503, unavailablePage(), { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) });
      }
      sendHtml(res, 500, errorPage('Something went wrong', 'Try again from the application.'));
    });
    return true;
  };
}
