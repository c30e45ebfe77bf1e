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
