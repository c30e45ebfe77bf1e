import { test } from "node:test";
import assert from "node:assert/strict";
import { client, newKey, raw } from "./helpers.mjs";

test("an SDK client with a fresh key lists no envelopes", async () => {
  const { key } = newKey();
  const res = await client(key).envelope.envelopeFind({});
  assert.deepEqual(res.data, []);
  assert.equal(res.count, 0);
  assert.equal(res.currentPage, 1);
  assert.equal(res.perPage, 10);
  assert.equal(res.totalPages, 0);
});

test("the key works raw and as a Bearer token, on v2 and v2-beta", async () => {
  const { key } = newKey();
  for (const header of [key, `Bearer ${key}`]) {
    const res = await raw("GET", "/envelope", { key: header });
    assert.equal(res.status, 200, res.text);
  }
  const beta = await fetch(new URL("/api/v2-beta/envelope", new URL(process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080")), { headers: { Authorization: key } });
  assert.equal(beta.status, 200);
});

test("no key or an unknown key is 401 with {message, code}", async () => {
  for (const key of [undefined, "api_doesnotexist0000000000000000000"]) {
    const res = await raw("GET", "/envelope", { key });
    assert.equal(res.status, 401);
    assert.equal(res.json.code, "UNAUTHORIZED");
    assert.ok(res.json.message.length > 0);
  }
  await assert.rejects(client("api_wrong").envelope.envelopeFind({}), (err) => {
    assert.equal(err.statusCode, 401);
    return true;
  });
});

test("unknown routes and methods answer the error body", async () => {
  const { key } = newKey();
  const missing = await raw("GET", "/no-such-thing", { key });
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, "NOT_FOUND");
  const method = await raw("DELETE", "/envelope", { key });
  assert.equal(method.status, 405);
  assert.equal(method.json.code, "METHOD_NOT_ALLOWED");
});
