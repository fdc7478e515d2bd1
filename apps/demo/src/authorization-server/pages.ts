// The authorization server's pages: plain HTML rendered on the server, no script at all, styled
// by one stylesheet from the same origin, so they run under a strict Content-Security-Policy
// (PAGE_CSP). Every value written into them is escaped.

/**
 * Path of the pages' stylesheet.
 *
 * @example
 * ```ts
 * `<link rel="stylesheet" href="${STYLESHEET_PATH}">`;
 * ```
 */
export const STYLESHEET_PATH = '/interaction/style.css';

/**
 * The Content-Security-Policy of the pages: nothing but the stylesheet loads, nothing frames
 * them, and their forms post to this origin, whose redirects may lead back to a loopback client
 * (the command-line client's `http://127.0.0.1:<port>/callback`).
 *
 * @example
 * ```ts
 * res.setHeader('content-security-policy', PAGE_CSP);
 * ```
 */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' http://127.0.0.1:* http://localhost:*; " +
  "frame-ancestors 'none'; base-uri 'none'";

/**
 * {@link PAGE_CSP} for the pages of an authorization whose client is sent back to `redirectUri`:
 * the browser applies `form-action` to the redirects a form's post leads to, so a client that
 * registered an `https` redirect URI has its origin added; the loopback names are there already.
 * A CSP source cannot name an IPv6 address (Chromium ignores `http://[::1]:9000` as invalid, and
 * the redirect is then blocked), so a `[::1]` redirect URI adds its scheme (`http:`) alone: the
 * pages' own forms post to this origin only, and where a post's redirects lead is decided by
 * the redirect URIs the client registered. Anything but such a URI leaves the policy as it is.
 *
 * @example
 * ```ts
 * pageCsp('https://client.example/cb'); // "… form-action 'self' http://127.0.0.1:* http://localhost:* https://client.example; …"
 * pageCsp('http://[::1]:9000/cb');       // "… form-action 'self' http://127.0.0.1:* http://localhost:* http:; …"
 * ```
 */
export function pageCsp(redirectUri: unknown): string {
  const url = typeof redirectUri === 'string' ? URL.parse(redirectUri) : null;
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) return PAGE_CSP;
  const extra = url.hostname.startsWith('[') ? url.protocol : url.protocol === 'https:' ? url.origin : null;
  // An origin is scheme, host and port only: nothing in it can end the directive.
  return extra === null || !/^https?:(\/\/[A-Za-z0-9.:-]+)?$/.test(extra) ? PAGE_CSP : PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${extra}`);
}

/**
 * The stylesheet's text.
 *
 * @example
 * ```ts
 * res.end(STYLESHEET);
 * ```
 */
export const STYLESHEET = `body { font-family: system-ui, sans-serif; background: #f5f5f7; color: #1d1d1f; margin: 0; }
main { max-width: 26rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 0.5rem; box-shadow: 0 1px 4px rgba(0,0,0,.15); }
h1 { font-size: 1.3rem; margin-top: 0; }
label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: 0.5rem; font-size: 1rem; }
.actions { display: flex; gap: 0.5rem; margin-top: 1.5rem; }
button { padding: 0.5rem 1.25rem; font-size: 1rem; cursor: pointer; }
button.primary { background: #49cc90; border: 1px solid #3aa876; color: #fff; }
.error { color: #b00020; font-weight: 600; }
.hint { color: #555; font-size: 0.9rem; }
.notice { background: #fff8e1; border-left: 4px solid #f0b400; padding: 0.5rem 0.75rem; }
li.refused { color: #777; text-decoration: line-through; }
`;

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for HTML content and quoted attribute values.
 *
 * @example
 * ```ts
 * escapeHtml('<b>'); // '&lt;b&gt;'
 * ```
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

const page = (title: string, body: string) => `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)}</title>
    <link rel="stylesheet" href="${STYLESHEET_PATH}">
  </head>
  <body>
    <main>
${body}
    </main>
  </body>
</html>
`;

// A second submit button of the same form that posts to the abort step instead.
const abortButton = (uid: string, id: string, label: string) =>
  `<button type="submit" id="${id}" formaction="/interaction/${encodeURIComponent(uid)}/abort" formnovalidate>${label}</button>`;

// Said of a client that registered itself: its name is whatever it chose to call itself.
const registeredNotice = (registered: boolean) =>
  registered
    ? `\n      <p class="notice" id="registered-client">This application registered itself with this server: it is not one of the demo's own clients, and its name is the one it gave itself.</p>`
    : '';

/**
 * What the login page shows.
 *
 * @example
 * ```ts
 * const view: LoginView = { uid, clientName: 'Swagger UI', error: null, username: '' };
 * ```
 */
export interface LoginView {
  uid: string;
  clientName: string;
  /** Whether the client registered itself (RFC 7591) rather than being one of the demo's own. */
  registered?: boolean;
  /** Why the last attempt failed, or `null`. */
  error: string | null;
  /** The username to fill in again after a failure. */
  username: string;
}

/**
 * The login page: the demo's users and passwords.
 *
 * @example
 * ```ts
 * res.end(loginPage({ uid, clientName: 'Swagger UI', error: null, username: '' }));
 * ```
 */
export function loginPage({ uid, clientName, registered = false, error, username }: LoginView): string {
  return page(
    'Log in: trpc-oauth2 demo',
    `      <h1>Log in to the trpc-oauth2 demo</h1>
      <p><strong>${escapeHtml(clientName)}</strong> asks you to log in.</p>${registeredNotice(registered)}
      ${error === null ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`}
      <form method="post" action="/interaction/${encodeURIComponent(uid)}/login">
        <label for="username">Username</label>
        <input type="text" id="username" name="username" autocomplete="username" required autofocus value="${escapeHtml(username)}">
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required>
        <div class="actions"><button type="submit" class="primary" id="login">Log in</button>${abortButton(uid, 'cancel', 'Cancel')}</div>
      </form>
      <p class="hint">Demo users: alice / wonderland (scopes me, items), bob / builder (scope me).</p>`,
  );
}

/**
 * What the consent page shows: each requested scope, and whether this user may be granted it.
 *
 * @example
 * ```ts
 * const view: ConsentView = { uid, clientName: 'Swagger UI', username: 'bob', scopes: [{ name: 'items', description: 'Read your items', allowed: false }] };
 * ```
 */
export interface ConsentView {
  uid: string;
  clientName: string;
  /** Whether the client registered itself (RFC 7591) rather than being one of the demo's own. */
  registered?: boolean;
  username: string;
  scopes: readonly { name: string; description: string; allowed: boolean }[];
}

/**
 * The consent page: what the client asks for, what it will get, Allow or Deny.
 *
 * @example
 * ```ts
 * res.end(consentPage(view));
 * ```
 */
export function consentPage({ uid, clientName, registered = false, username, scopes }: ConsentView): string {
  const items = scopes
    .map(({ name, description, allowed }) =>
      allowed
        ? `<li><code>${escapeHtml(name)}</code>: ${escapeHtml(description)}</li>`
        : `<li class="refused"><code>${escapeHtml(name)}</code>: ${escapeHtml(description)} (not granted: ${escapeHtml(username)} may not have it)</li>`,
    )
    .join('\n        ');
  return page(
    'Allow access: trpc-oauth2 demo',
    `      <h1>Allow access?</h1>
      <p>Logged in as <strong>${escapeHtml(username)}</strong>. <strong>${escapeHtml(clientName)}</strong> asks to use the demo API as you, with:</p>${registeredNotice(registered)}
      <ul>
        ${items || '<li>no scope</li>'}
      </ul>
      <form method="post" action="/interaction/${encodeURIComponent(uid)}/consent">
        <div class="actions"><button type="submit" class="primary" id="allow">Allow</button>${abortButton(uid, 'deny', 'Deny')}</div>
      </form>`,
  );
}

/**
 * A page for an interaction that cannot go on (expired, unknown, a malformed request).
 *
 * @example
 * ```ts
 * res.end(errorPage('This login has expired', 'Start again from the application.'));
 * ```
 */
export function errorPage(title: string, detail: string): string {
  return page(title, `      <h1>${escapeHtml(title)}</h1>\n      <p>${escapeHtml(detail)}</p>`);
}

/**
 * The page of a request that could not be served for now because the database cannot be reached
 * (it is down, restarting, or did not answer in time): sent with 503 and `Retry-After`, by the
 * authorization server and by its login and consent pages alike. It says to try again, and
 * nothing of the fault.
 *
 * @example
 * ```ts
 * res.writeHead(503, { 'retry-after': '5', 'content-type': 'text/html; charset=utf-8' }).end(unavailablePage());
 * ```
 */
export function unavailablePage(): string {
  return errorPage('The service is unavailable for a moment', 'Try again shortly.');
}

/**
 * The page asking whether to sign out of the authorization server (RP-initiated logout), around
 * oidc-provider's form (`form`: its action and hidden `xsrf` field, no script).
 *
 * @example
 * ```ts
 * ctx.body = logoutPage(form);
 * ```
 */
export function logoutPage(form: string): string {
  return page(
    'Sign out',
    `      <h1>Sign out of the trpc-oauth2 demo?</h1>
      ${form}
      <button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
      <button type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );
}

/**
 * The page shown after signing out when the client gave no place to return to. Anyone may open
 * it with any client's id, so a client that registered itself (`registered`) is said to be one,
 * as on the login and consent pages.
 *
 * @example
 * ```ts
 * ctx.body = loggedOutPage('Swagger UI of the trpc-oauth2 demo');
 * ```
 */
export function loggedOutPage(clientName: string | undefined, registered = false): string {
  return page(
    'Signed out',
    `      <h1>Signed out</h1>\n      <p>${escapeHtml(clientName === undefined ? 'You are signed out.' : `You are signed out of ${clientName}.`)}</p>${registeredNotice(clientName !== undefined && registered)}`,
  );
}
