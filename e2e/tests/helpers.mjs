// Shared helpers of the end-to-end tests: a Documenso SDK client pointed at the Sobre server that
// `make test` started (SOBRE_E2E_URL), and API keys minted with the real `sobre admin` command.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Documenso } from "@documenso/sdk-typescript";

export const baseURL = process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080";
export const apiURL = `${baseURL}/api/v2`;

// newKey makes a team member and returns a fresh API key for it.
export function newKey({ team, email, role = "ADMIN" } = {}) {
  const suffix = randomBytes(4).toString("hex");
  team ??= `e2e-team-${suffix}`;
  email ??= `owner-${suffix}@example.com`;
  const out = execFileSync(process.env.SOBRE_E2E_ADMIN ?? "../bin/sobre",
    ["admin", "create-key", "--team", team, "--email", email, "--role", role],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const lines = out.trim().split("\n");
  return { key: lines[lines.length - 1], team, email };
}

// client returns an SDK client with the key, as a Documenso user would make one.
// The key stays on the client as .key, for raw calls in the same test.
export function client(key) {
  const sdk = new Documenso({ apiKey: key, serverURL: apiURL, retryConfig: { strategy: "none" } });
  sdk.key = key;
  return sdk;
}

// raw calls the API without the SDK, for what the SDK cannot express (missing or bad headers).
export async function raw(method, path, { key, body, headers = {} } = {}) {
  const h = { ...headers };
  if (key !== undefined) h.Authorization = key;
  if (body !== undefined && !(body instanceof FormData)) h["Content-Type"] = "application/json";
  const res = await fetch(`${apiURL}${path}`, {
    method, headers: h,
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text, headers: res.headers };
}

export const mailpitURL = process.env.SOBRE_E2E_MAILPIT ?? "http://127.0.0.1:8026";

// mailsTo returns the messages the sink holds for address, oldest first.
export async function mailsTo(address) {
  const res = await fetch(`${mailpitURL}/api/v1/search?query=${encodeURIComponent(`to:"${address}"`)}&limit=200`);
  if (!res.ok) throw new Error(`mailpit search: ${res.status}`);
  const body = await res.json();
  return (body.messages ?? []).slice().reverse();
}

// message returns one message with its attachments' metadata.
export async function message(id) {
  const res = await fetch(`${mailpitURL}/api/v1/message/${id}`);
  if (!res.ok) throw new Error(`mailpit message: ${res.status}`);
  return res.json();
}

// eventually polls fn until it returns a truthy value or the time is up.
export async function eventually(fn, { timeout = 15000, interval = 100, what = "condition" } = {}) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, interval));
  }
  throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(last)}`);
}

export function uniqueEmail(name) {
  return `${name}-${randomBytes(5).toString("hex")}@example.com`;
}

// signing calls the recipient signing API with a recipient's token.
export async function signing(method, token, path = "", body) {
  const res = await fetch(`${apiURL}/signing/${token}${path}`, {
    method, headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text, headers: res.headers };
}
