// authflow.mjs: the browser's part of an OAuth authorization-code flow at
// authserver.mjs (login and consent), done with plain fetch, for the host
// scripts of the bridge's OAuth tests (see docs/authorization.md).
//
//   import { completeAuthorization } from "./authflow.mjs";
//   const redirect = await completeAuthorization(authorizationUrl);
//   const code = new URL(redirect).searchParams.get("code");
//
// It opens the authorization URL, follows the redirects to the login page,
// signs in, follows them to the consent page, allows, and follows them
// until one leaves the authorization server: that Location (the client's
// redirect_uri with code, state and iss) is the result. Cookies are kept by
// name for the authorization server's origin, as a browser would. Any
// other outcome throws, with the page's text.
import process from "node:process";
import { pathToFileURL } from "node:url";

const maxSteps = 20;

// completeAuthorization returns the URL the authorization server finally
// redirects the browser to. With deny, it refuses consent instead, and
// returns the redirect that carries error=access_denied; without deny, an
// error redirect throws.
export async function completeAuthorization(authorizationUrl, { login = "alice", password = "pass", deny = false } = {}) {
  const start = new URL(authorizationUrl);
  const jar = new Map(); // cookie name → value, for start.origin
  // ofServer says whether url is still the authorization server's (its
  // authorization endpoint, the resume route under it, or an interaction).
  const ofServer = (url) =>
    url.origin === start.origin &&
    (url.pathname === start.pathname || url.pathname.startsWith(`${start.pathname}/`) || url.pathname.startsWith("/interaction/"));

  let url = start;
  let request = { method: "GET" };
  let loggedIn = false;
  const trail = [];
  for (let step = 0; step < maxSteps; step++) {
    trail.push(`${request.method} ${url.pathname}`);
    const headers = { ...request.headers };
    if (url.origin === start.origin && jar.size) {
      headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    const res = await fetch(url, { ...request, headers, redirect: "manual" });
    if (url.origin === start.origin) keepCookies(jar, res);

    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      const location = res.headers.get("location");
      if (!location) throw new Error(`authflow: ${res.status} without Location at ${url} (${trail.join(" → ")})`);
      const next = new URL(location, url);
      if (!ofServer(next)) {
        const error = next.searchParams.get("error");
        if (error && !deny) {
          throw new Error(`authflow: the authorization ended with ${error}: ${next.searchParams.get("error_description") ?? ""} (${next})`);
        }
        return next.href;
      }
      url = next;
      request = { method: "GET" };
      continue;
    }

    const body = await res.text();
    if (res.status !== 200) {
      throw new Error(`authflow: ${request.method} ${url} answered ${res.status} (${trail.join(" → ")}): ${pageText(body)}`);
    }
    const forms = parseForms(body, url);
    const loginForm = forms.find((f) => f.fields.has("login"));
    let form;
    if (loginForm) {
      if (loggedIn) throw new Error(`authflow: the login page again after signing in: ${pageText(body)}`);
      loggedIn = true;
      form = loginForm;
      form.fields.set("login", login);
      form.fields.set("password", password);
    } else {
      form = forms.find((f) => f.action.pathname.endsWith(deny ? "/abort" : "/confirm"));
      if (!form) throw new Error(`authflow: no login or consent form at ${url} (${trail.join(" → ")}): ${pageText(body)}`);
    }
    url = form.action;
    request = {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([...form.fields]).toString(),
    };
  }
  throw new Error(`authflow: more than ${maxSteps} steps: ${trail.join(" → ")}`);
}

// keepCookies stores res's Set-Cookie cookies in jar, and drops the ones
// it expires.
function keepCookies(jar, res) {
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...attrs] = line.split(";");
    const eq = pair.indexOf("=");
    if (eq < 1) continue;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attrs.some((a) => {
      const [k, v = ""] = a.split("=").map((s) => s.trim());
      if (/^max-age$/i.test(k)) return Number(v) <= 0;
      if (/^expires$/i.test(k)) return Date.parse(v) <= Date.now();
      return false;
    });
    if (expired || value === "") jar.delete(name);
    else jar.set(name, value);
  }
}

// parseForms returns the page's forms: each one's action (resolved against
// base) and its named inputs with their values.
function parseForms(html, base) {
  const forms = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const action = new URL(attr(m[1], "action") ?? "", base);
    const fields = new Map();
    for (const input of m[2].matchAll(/<input\b([^>]*)>/gi)) {
      const name = attr(input[1], "name");
      if (name) fields.set(name, attr(input[1], "value") ?? "");
    }
    forms.push({ action, fields });
  }
  return forms;
}

function attr(tag, name) {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return m ? unescapeHTML(m[1] ?? m[2] ?? m[3]) : undefined;
}

function unescapeHTML(s) {
  return s.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, e) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" })[e]);
}

// pageText is a page's text without its markup, for error messages.
function pageText(html) {
  return unescapeHTML(
    html
      .replace(/<(style|script)\b[\s\S]*?<\/\1>/gi, " ")
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .trim(),
  ).slice(0, 2000);
}

// Run directly, it completes the authorization at the URL given as its
// argument and prints the final redirect.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  completeAuthorization(process.argv[2]).then(
    (url) => console.log(url),
    (err) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
