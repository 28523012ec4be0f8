// authserver.mjs: a real OAuth 2.1 authorization server for the bridge's
// tests of MCP authorization (the bridge is the resource server; see
// docs/authorization.md). It is oidc-provider (panva/node-oidc-provider,
// pinned in package.json) with the configuration those tests need:
//
//   node authserver.mjs [--port N] [--scopes "mcp:read mcp:tools mcp:admin"]
//
// --port 0 (the default) picks a free port. The issuer is
// http://127.0.0.1:PORT. Once listening, the script prints one JSON line on
// stdout,
//
//   {"issuer":"http://127.0.0.1:PORT","jwks_uri":"…","token_endpoint":"…","kid":"…"}
//
// (kid: the key new access tokens are signed with), then serves until
// SIGTERM or SIGINT (exit status 0). Diagnostics go to stderr only.
//
// What it offers:
//   - discovery at /.well-known/openid-configuration and
//     /.well-known/oauth-authorization-server; JWKS at /jwks;
//   - open dynamic client registration (/reg), public clients
//     (token_endpoint_auth_method "none") included, PKCE S256 required for
//     them;
//   - resource indicators (RFC 8707): any http(s) URL is a resource; its
//     access tokens are JWTs (typ at+jwt, ES256) with aud = that URL exactly,
//     and scope = the granted ones among --scopes;
//   - the client_credentials grant, and two pre-registered confidential
//     clients: test-client/test-secret (tokens live 600 s) and
//     short-client/short-secret (client_credentials tokens live 3 s);
//   - the code flow with login and consent as real pages under
//     /interaction/:uid (any non-empty user name, password "pass"; Deny
//     answers access_denied); authflow.mjs completes them with fetch. An
//     authorization request without scope asks for the client's registered
//     scope. Every client allowed the refresh_token grant gets refresh
//     tokens;
//   - token introspection (/token/introspection) and revocation
//     (/token/revocation);
//   - POST /admin/rotate: a new signing key, first in the JWKS, the old one
//     still published; answers {"kid":"<new kid>"}. GET /admin/health: ok.
import * as crypto from "node:crypto";
import * as http from "node:http";
import process from "node:process";
import { parseArgs } from "node:util";

// oidc-provider prints its notices with console.info (stdout); stdout is
// the line the tests read, so everything else goes to stderr.
console.log = console.error;
console.info = console.error;

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      scopes: { type: "string", default: "mcp:read mcp:tools mcp:admin" },
    },
  }));
} catch (err) {
  console.error(`authserver: ${err.message}\nusage: node authserver.mjs [--port N] [--scopes "a b c"]`);
  process.exit(2);
}
const port = Number(args.port);
if (args.port === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`authserver: bad --port ${args.port}`);
  process.exit(2);
}

// Imported after the console is redirected. (On Node 20 the package warns
// on stderr that it wants Node 22; it works on both.)
const { default: Provider, errors } = await import("oidc-provider");
// The provider's own in-memory adapter, given one store that outlives a
// Provider instance, so that clients, sessions and grants survive a key
// rotation (which builds a new instance). It is not in the package's
// public API; the package is pinned exactly.
const { createMemoryAdapter } = await import("oidc-provider/lib/adapters/memory_adapter.js");
// resourceScopes are the scopes of every resource server (any URL).
const resourceScopes = args.scopes.split(/\s+/).filter(Boolean);

const accessTokenTTL = 600;
const shortClientTTL = 3;

// newSigningKey is an EC P-256 key pair as a private JWK with a random kid.
function newSigningKey() {
  const { privateKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { ...privateKey.export({ format: "jwk" }), kid: crypto.randomBytes(12).toString("base64url"), alg: "ES256", use: "sig" };
}

// keys: newest first. The first one signs; all are published.
const keys = [newSigningKey()];
// What every Provider instance shares: cookie signing keys and the store.
const cookieKeys = [crypto.randomBytes(32).toString("base64url")];
const adapter = createMemoryAdapter(15);

// The pre-registered clients. oidc-provider takes a client secret in the
// Authorization header (client_secret_basic) or in the form
// (client_secret_post) alike, whichever of the two a client registered.
const clients = [
  {
    client_id: "test-client",
    client_secret: "test-secret",
    grant_types: ["client_credentials", "authorization_code", "refresh_token"],
    response_types: ["code"],
    redirect_uris: ["http://127.0.0.1/callback"],
    token_endpoint_auth_method: "client_secret_basic",
  },
  {
    client_id: "short-client",
    client_secret: "short-secret",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: "client_secret_basic",
  },
];

// newProvider builds the provider for issuer with the current keys.
function newProvider(issuer) {
  const kid = keys[0].kid;
  const provider = new Provider(issuer, {
    adapter,
    clients,
    clientAuthMethods: ["client_secret_basic", "client_secret_post", "none"],
    clientDefaults: {
      grant_types: ["authorization_code"],
      id_token_signed_response_alg: "ES256",
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
    // OAuth 2.1: the code flow only (no implicit, no hybrid).
    responseTypes: ["code"],
    jwks: { keys: keys.map((k) => ({ ...k })) },
    cookies: {
      keys: cookieKeys,
      long: { httpOnly: true, sameSite: "lax", secure: false },
      short: { httpOnly: true, sameSite: "lax", secure: false },
    },
    scopes: ["openid", "offline_access", ...resourceScopes],
    claims: { openid: ["sub"] },
    // A refresh token for every client that may use the refresh_token
    // grant, as MCP clients expect, whether or not it asked for
    // offline_access (the provider's default needs offline_access).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // No resource asked for: none (the token is then opaque, for
        // userinfo only); several at the token endpoint: the first.
        defaultResource: async (_ctx, _client, oneOf) => (oneOf ? oneOf[0] : undefined),
        // A code-flow token request may leave out the resource of the
        // authorization request.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource) => {
          let url;
          try {
            url = new URL(resource);
          } catch {
            throw new errors.InvalidTarget("resource must be an absolute URL");
          }
          if (url.protocol !== "http:" && url.protocol !== "https:") {
            throw new errors.InvalidTarget("resource must be an http or https URL");
          }
          return {
            scope: resourceScopes.join(" "),
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "ES256", kid } },
          };
        },
      },
    },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === "none" },
    interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: accessTokenTTL,
      AuthorizationCode: 60,
      ClientCredentials: (_ctx, _token, client) => (client.clientId === "short-client" ? shortClientTTL : accessTokenTTL),
      Grant: 3600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 3600,
      Session: 3600,
    },
  });
  provider.proxy = false;
  provider.use(defaultScope(provider));
  for (const event of ["server_error", "authorization.error", "grant.error", "registration_create.error", "introspection.error", "revocation.error", "jwks.error", "discovery.error"]) {
    provider.on(event, (ctx, err) => console.error(`authserver: ${event}: ${err?.message}${err?.error_description ? ` (${err.error_description})` : ""}`));
  }
  return provider;
}

// defaultScope is a middleware in front of the authorization endpoint: a
// request without scope asks for the scope the client registered, or, for
// a client that registered none, every resource scope. (oidc-provider
// denies an authorization that grants no scope at all.) A token request
// without scope gets what the authorization granted: that is the
// provider's own behaviour.
function defaultScope(provider) {
  return async (ctx, next) => {
    if (ctx.method === "GET" && ctx.path === "/auth" && !ctx.query.scope && typeof ctx.query.client_id === "string") {
      const client = await provider.Client.find(ctx.query.client_id);
      if (client) {
        ctx.query = { ...ctx.query, scope: client.scope || resourceScopes.join(" ") };
      }
    }
    return next();
  };
}

// --- interactions: login and consent pages ---------------------------------

const esc = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

function page(res, status, title, body) {
  const html = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body><h1>${esc(title)}</h1>
${body}
</body></html>
`;
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(html);
}

function loginPage(res, uid, details, error = "") {
  page(
    res,
    error ? 400 : 200,
    "Sign in",
    `<p>Client: ${esc(details.params.client_id)}</p>
${error ? `<p class="error">${esc(error)}</p>` : ""}
<form method="post" action="/interaction/${esc(uid)}/login">
<input type="hidden" name="prompt" value="login">
<label>User name <input type="text" name="login" value="" autofocus></label>
<label>Password <input type="password" name="password" value=""></label>
<button type="submit">Sign in</button>
</form>
<form method="post" action="/interaction/${esc(uid)}/abort"><button type="submit">Cancel</button></form>`,
  );
}

function consentPage(res, uid, details) {
  const { params, prompt } = details;
  const resources = [params.resource ?? []].flat();
  const scopes = (params.scope ?? "").split(" ").filter(Boolean);
  page(
    res,
    200,
    "Authorize",
    `<p>Client <b>${esc(params.client_id)}</b> asks for:</p>
<ul class="scopes">${scopes.map((s) => `<li>${esc(s)}</li>`).join("")}</ul>
<p>at:</p>
<ul class="resources">${resources.map((r) => `<li>${esc(r)}</li>`).join("")}</ul>
<pre class="details">${esc(JSON.stringify(prompt.details))}</pre>
<form method="post" action="/interaction/${esc(uid)}/confirm">
<input type="hidden" name="prompt" value="consent">
<button type="submit">Allow</button>
</form>
<form method="post" action="/interaction/${esc(uid)}/abort"><button type="submit">Deny</button></form>`,
  );
}

async function readForm(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error("form too large");
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

// interaction serves /interaction/:uid[/login|/confirm|/abort].
async function interaction(provider, req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) {
    return page(res, 400, "Error", `<p>interaction ${esc(uid)} is not the current one</p>`);
  }
  const { prompt, params, session } = details;
  if (req.method === "GET" && action === "") {
    if (prompt.name === "login") return loginPage(res, uid, details);
    if (prompt.name === "consent") return consentPage(res, uid, details);
    return page(res, 400, "Error", `<p>unknown prompt ${esc(prompt.name)}</p>`);
  }
  if (req.method !== "POST") return page(res, 405, "Error", "<p>method not allowed</p>");
  const form = await readForm(req);
  switch (action) {
    case "/login": {
      if (prompt.name !== "login") return page(res, 400, "Error", "<p>not a login prompt</p>");
      const login = (form.get("login") ?? "").trim();
      if (!login || form.get("password") !== "pass") {
        return loginPage(res, uid, details, "wrong user name or password");
      }
      return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    }
    case "/confirm": {
      if (prompt.name !== "consent") return page(res, 400, "Error", "<p>not a consent prompt</p>");
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
      if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(" "));
      if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
        grant.addResourceScope(resource, scopes.join(" "));
      }
      const grantId = await grant.save();
      return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    case "/abort":
      return provider.interactionFinished(
        req,
        res,
        { error: "access_denied", error_description: "End-User aborted interaction" },
        { mergeWithLastSubmission: false },
      );
    default:
      return page(res, 404, "Error", "<p>not found</p>");
  }
}

// --- the server ------------------------------------------------------------

const loopback = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
let provider; // the current Provider instance
let providerHandler; // its request handler

function json(res, status, body) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

const server = http.createServer(async (req, res) => {
  const path = req.url.split("?")[0];
  try {
    if (path === "/admin/health" && req.method === "GET") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end("ok");
    }
    if (path === "/admin/rotate") {
      if (req.method !== "POST") return json(res, 405, { error: "POST only" });
      if (!loopback.has(req.socket.remoteAddress)) return json(res, 403, { error: "loopback only" });
      keys.unshift(newSigningKey());
      provider = newProvider(provider.issuer);
      providerHandler = provider.callback();
      console.error(`authserver: rotated; signing kid ${keys[0].kid}, published ${keys.map((k) => k.kid).join(", ")}`);
      return json(res, 200, { kid: keys[0].kid });
    }
    const m = /^\/interaction\/([^/]+)(\/login|\/confirm|\/abort)?$/.exec(path);
    if (m) return await interaction(provider, req, res, m[1], m[2] ?? "");
    return providerHandler(req, res);
  } catch (err) {
    console.error(`authserver: ${req.method} ${path}: ${err?.stack ?? err}`);
    if (!res.headersSent) page(res, err?.statusCode ?? 500, "Error", `<p>${esc(err?.name)}: ${esc(err?.error_description ?? err?.message)}</p>`);
    else res.destroy();
  }
});

server.on("error", (err) => {
  console.error(`authserver: ${err.message}`);
  process.exit(1);
});
server.listen(port, "127.0.0.1", () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  provider = newProvider(issuer);
  providerHandler = provider.callback();
  process.stdout.write(
    JSON.stringify({
      issuer,
      jwks_uri: `${issuer}/jwks`,
      token_endpoint: `${issuer}/token`,
      kid: keys[0].kid,
    }) + "\n",
  );
  console.error(`authserver: listening at ${issuer}; resource scopes: ${resourceScopes.join(" ")}`);
});

function stop(signal) {
  console.error(`authserver: ${signal}, exiting`);
  server.close();
  server.closeAllConnections();
  process.exit(0);
}
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
