// oauth-host.mjs: the official TypeScript SDK client as a remote MCP host
// that obtains its own OAuth access token for the bridge, as the MCP
// specification's authorization chapter has it (docs/authorization.md),
// for cmd/mcpbridge's OAuth tests.
//
//   node oauth-host.mjs MCP_URL
//
// 1. connect: the SDK's Streamable HTTP transport with an OAuthClientProvider
//    posts without a token, reads the 401's WWW-Authenticate, discovers the
//    protected resource metadata and the authorization server, registers a
//    client, and sends the browser to the authorization URL with PKCE and
//    the resource indicator; authflow.mjs signs in and consents as a user
//    would, and the transport's finishAuth exchanges the code. Then it
//    lists the tools and calls echo.
// 2. step-up: a second host whose first token (obtained with the SDK's own
//    startAuthorization and exchangeAuthorization) holds only mcp:read. Its
//    call of echo gets 403 insufficient_scope; the SDK asks for the scope
//    the challenge names, and after the consent the call goes through.
//
// It prints one JSON line a step: {"step", ...}, with each token's
// scope and audience and, for the tests' gRPC call, the first token.
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  UnauthorizedError,
  discoverOAuthProtectedResourceMetadata,
  discoverAuthorizationServerMetadata,
  registerClient,
  startAuthorization,
  exchangeAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { completeAuthorization } from "./authflow.mjs";
import { describe } from "./hostkit.mjs";

const url = new URL(process.argv[2]);
const redirectUrl = "http://127.0.0.1:8765/callback";

const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

// claims reads a JWT's payload (the host does not verify it: the bridge does).
function claims(token) {
  return JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
}

// Provider keeps one host's OAuth state in memory. Its browser is
// authflow.mjs: a redirect to the authorization server is followed at
// once, and the code it ends with waits in pending for finishAuth.
class Provider {
  constructor(name) {
    this.name = name;
    this.pending = null;
    this.authorizations = 0;
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: `mcpbridge oauth-host ${this.name}`,
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  redirectToAuthorization(authorizationUrl) {
    this.authorizations++;
    this.lastAuthorization = authorizationUrl;
    this.pending = completeAuthorization(authorizationUrl.href).then((redirect) => new URL(redirect).searchParams.get("code"));
  }
}

// authorized runs op; when the SDK stops for the user's authorization,
// it completes it (finishAuth) and runs op again.
async function authorized(provider, transport, op) {
  try {
    return await op();
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || !provider.pending) throw err;
    const code = await provider.pending;
    provider.pending = null;
    await transport.finishAuth(code);
    return await op();
  }
}

function tokenLine(step, provider, extra = {}) {
  const c = claims(provider.tokens().access_token);
  return { step, scope: c.scope, aud: c.aud, sub: c.sub, authorizations: provider.authorizations, ...extra };
}

async function connect() {
  const provider = new Provider("connect");
  let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  let client = new Client({ name: "oauth-host", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || !provider.pending) throw err;
    await transport.finishAuth(await provider.pending);
    provider.pending = null;
    // As the SDK's own examples do: a new transport with the token.
    transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    client = new Client({ name: "oauth-host", version: "1.0.0" });
    await client.connect(transport);
  }
  const auth = provider.lastAuthorization;
  print(
    tokenLine("connect", provider, {
      token: provider.tokens().access_token,
      resource: auth?.searchParams.get("resource"),
      requested: auth?.searchParams.get("scope"),
      pkce: auth?.searchParams.get("code_challenge_method"),
      client: provider.clientInformation()?.client_id ?? null,
    }),
  );
  const tools = await client.listTools();
  print({ step: "list", tools: tools.tools.map((t) => t.name) });
  const res = await client.callTool({ name: "echo", arguments: { message: "hello over oauth" } });
  print({ step: "call", text: res.content?.[0]?.text ?? null });
  await client.close();
}

async function stepUp() {
  const provider = new Provider("step-up");
  // The first token, read only, by the SDK's own discovery and flow.
  const prm = await discoverOAuthProtectedResourceMetadata(url);
  const issuer = prm.authorization_servers[0];
  const metadata = await discoverAuthorizationServerMetadata(issuer);
  const info = await registerClient(issuer, { metadata, clientMetadata: provider.clientMetadata });
  provider.saveClientInformation(info);
  const resource = new URL(prm.resource);
  const { authorizationUrl, codeVerifier } = await startAuthorization(issuer, {
    metadata,
    clientInformation: info,
    redirectUrl,
    scope: "mcp:read",
    resource,
  });
  const code = new URL(await completeAuthorization(authorizationUrl.href)).searchParams.get("code");
  const first = await exchangeAuthorization(issuer, { metadata, clientInformation: info, authorizationCode: code, codeVerifier, redirectUri: redirectUrl, resource });
  // Kept without its refresh token: with one, the SDK (1.32) answers a
  // 403 insufficient_scope by refreshing the token, which keeps its
  // scopes, instead of asking the user for the new one.
  delete first.refresh_token;
  provider.saveTokens(first);
  print(tokenLine("read-only", provider));

  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const client = new Client({ name: "oauth-host-step-up", version: "1.0.0" });
  await client.connect(transport);
  const tools = await client.listTools();
  print({ step: "read-only-list", tools: tools.tools.map((t) => t.name) });
  const res = await authorized(provider, transport, () => client.callTool({ name: "echo", arguments: { message: "stepped up" } }));
  print(tokenLine("step-up", provider, { text: res.content?.[0]?.text ?? null, requested: provider.lastAuthorization?.searchParams.get("scope") }));
  await client.close();
}

try {
  await connect();
  await stepUp();
  print({ step: "done" });
} catch (err) {
  print({ step: "failed", ...describe(err), stack: String(err?.stack ?? "") });
  process.exitCode = 1;
}
