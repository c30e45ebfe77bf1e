// Webhooks end to end: subscriptions made through the API, a receiver on 127.0.0.1, every
// request's signature checked by the official Standard Webhooks library (not Sobre's code), the
// envelope driven by the Documenso SDK and the signing API.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { client, eventually, mailsTo, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";

const ALL = ["DOCUMENT_CREATED", "DOCUMENT_SENT", "DOCUMENT_OPENED", "DOCUMENT_SIGNED", "DOCUMENT_RECIPIENT_COMPLETED",
  "DOCUMENT_COMPLETED", "DOCUMENT_REJECTED", "DOCUMENT_CANCELLED", "RECIPIENT_EXPIRED", "DOCUMENT_REMINDER_SENT",
  "TEMPLATE_CREATED", "TEMPLATE_UPDATED", "TEMPLATE_DELETED", "TEMPLATE_USED"];

const field = (type, extra = {}) => ({ type, page: 1, positionX: 10, positionY: 10, width: 20, height: 5, ...extra });
const servers = [];
after(() => { for (const s of servers) s.close(); });

// receiver listens on 127.0.0.1 and keeps every request; answer(request number from 1, request)
// decides the status of each answer (204 by default).
async function receiver(answer = () => 204) {
  const got = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const hit = { headers: req.headers, body, json: JSON.parse(body) };
      got.push(hit);
      res.statusCode = answer(got.length, hit);
      res.end();
    });
  });
  servers.push(server);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hooks/sobre`, got };
}

async function subscribe(key, url, eventTriggers = ALL, extra = {}) {
  const r = await raw("POST", "/webhook/create", { key, body: { webhookUrl: url, eventTriggers, ...extra } });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

// verified checks a request's signature with secret, as an integrator's code would, and
// returns its body.
function verified(hit, secret) {
  return new Webhook(secret).verify(hit.body, {
    "webhook-id": hit.headers["webhook-id"], "webhook-timestamp": hit.headers["webhook-timestamp"],
    "webhook-signature": hit.headers["webhook-signature"],
  });
}

const of = (got, id) => got.filter((h) => h.json.payload.id === id);

async function makeEnvelope(sdk, recipients, meta = {}) {
  const { id } = await sdk.envelopes.create({
    payload: { title: "Contrato con aviso", type: "DOCUMENT", recipients, meta },
    files: [{ fileName: "contrato.pdf", content: makePDF([{ texts: [{ x: 72, y: 700, text: "Contrato" }] }]) }],
  });
  return id;
}

test("a whole lifecycle arrives once per event, in order, signed, without any signing token", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const rx = await receiver();
  const hook = await subscribe(key, rx.url);
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const shown = await raw("GET", `/webhook/${hook.id}`, { key });
  assert.equal(shown.status, 200);
  assert.equal(shown.json.secret, undefined, "the secret is shown only once");

  const approver = uniqueEmail("aprueba"), first = uniqueEmail("firma1"), second = uniqueEmail("firma2");
  const id = await makeEnvelope(sdk, [
    { email: approver, name: "Aprobador", role: "APPROVER", signingOrder: 1 },
    { email: first, name: "Primera", role: "SIGNER", signingOrder: 2, fields: [field("SIGNATURE")] },
    { email: second, name: "Segunda", role: "SIGNER", signingOrder: 3, fields: [field("SIGNATURE")] },
  ], { signingOrder: "SEQUENTIAL" });
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  const tok = Object.fromEntries(dist.recipients.map((r) => [r.email, r.token]));
  for (const who of [approver, first, second]) {
    const view = await eventually(async () => {
      const v = await signing("GET", tok[who]);
      return v.json?.mayActNow && v;
    }, { what: `${who}'s turn` });
    if (who !== approver) {
      const r = await signing("POST", tok[who], "/fields", { fieldId: view.json.fields[0].id, value: "Firma" });
      assert.equal(r.status, 200, r.text);
    }
    const done = await signing("POST", tok[who], "/complete");
    assert.equal(done.status, 200, done.text);
  }
  await eventually(async () => of(rx.got, id).some((h) => h.json.event === "DOCUMENT_COMPLETED"), { timeout: 60000, what: "DOCUMENT_COMPLETED" });
  const hits = of(rx.got, id);
  assert.deepEqual(hits.map((h) => h.json.event), [
    "DOCUMENT_CREATED", "DOCUMENT_SENT",
    "DOCUMENT_OPENED", "DOCUMENT_RECIPIENT_COMPLETED",
    "DOCUMENT_OPENED", "DOCUMENT_SIGNED", "DOCUMENT_RECIPIENT_COMPLETED",
    "DOCUMENT_OPENED", "DOCUMENT_SIGNED", "DOCUMENT_RECIPIENT_COMPLETED",
    "DOCUMENT_COMPLETED",
  ]);
  assert.equal(new Set(hits.map((h) => h.headers["webhook-id"])).size, hits.length, "each event arrived once");
  for (const h of hits) {
    verified(h, hook.secret);
    assert.match(h.headers["webhook-id"], /^msg_/);
    assert.equal(h.json.webhookEndpoint, rx.url);
    assert.ok(Math.abs(Number(h.headers["webhook-timestamp"]) * 1000 - Date.now()) < 120000);
    for (const t of Object.values(tok)) assert.ok(!h.body.includes(t), `${h.json.event} carries a signing token`);
    for (const r of h.json.payload.recipients) assert.equal(r.token, "");
    assert.equal(h.headers["x-documenso-secret"], undefined);
  }
  assert.equal(hits.at(-1).json.payload.status, "COMPLETED");
  assert.equal(hits[1].json.payload.status, "PENDING");
  const created = hits.map((h) => Date.parse(h.json.createdAt));
  assert.deepEqual(created, [...created].sort((a, b) => a - b), "createdAt is each event's time, in order");
  const tampered = { ...hits[0], body: hits[0].body.replace("DOCUMENT_CREATED", "DOCUMENT_DELETED") };
  assert.throws(() => verified(tampered, hook.secret), "a changed body fails verification");

  const calls = await raw("GET", `/webhook/${hook.id}/calls?perPage=50`, { key });
  assert.equal(calls.status, 200, calls.text);
  const mine = calls.json.data.filter((c) => c.envelopeId === id);
  assert.equal(mine.length, 11);
  for (const c of mine) {
    assert.equal(c.status, "SUCCESS");
    assert.equal(c.attemptHistory.length, 1);
    assert.equal(c.attemptHistory[0].responseCode, 204);
  }
});

test("rejection, cancellation and templates send their events", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const rx = await receiver();
  const hook = await subscribe(key, rx.url, ["DOCUMENT_REJECTED", "DOCUMENT_CANCELLED", "TEMPLATE_CREATED", "TEMPLATE_UPDATED", "TEMPLATE_USED", "TEMPLATE_DELETED"]);

  const a = uniqueEmail("rechaza");
  const rejected = await makeEnvelope(sdk, [{ email: a, name: "A", role: "SIGNER", fields: [field("SIGNATURE")] }]);
  const dist = await sdk.envelopes.distribute({ envelopeId: rejected });
  assert.equal((await signing("POST", dist.recipients[0].token, "/reject", { reason: "No corresponde" })).status, 200);
  const cancelled = await makeEnvelope(sdk, [{ email: uniqueEmail("b"), name: "B", role: "SIGNER", fields: [field("SIGNATURE")] }]);
  await sdk.envelopes.distribute({ envelopeId: cancelled });
  await sdk.envelope.envelopeCancel({ envelopeId: cancelled, reason: "Equivocado" });

  const { id: tpl } = await sdk.envelopes.create({
    payload: { title: "Plantilla con aviso", type: "TEMPLATE", recipients: [{ email: "firmante@template.invalid", name: "Firmante", role: "SIGNER", fields: [field("SIGNATURE")] }] },
    files: [{ fileName: "p.pdf", content: makePDF([{ texts: [{ x: 72, y: 700, text: "Plantilla" }] }]) }],
  });
  const upd = await raw("POST", "/envelope/update", { key, body: { envelopeId: tpl, data: { title: "Plantilla renombrada" } } });
  assert.equal(upd.status, 200, upd.text);
  const form = new FormData();
  form.append("payload", JSON.stringify({ envelopeId: tpl }));
  const used = await raw("POST", "/envelope/use", { key, body: form });
  assert.equal(used.status, 200, used.text);
  const del = await raw("POST", "/envelope/delete", { key, body: { envelopeId: tpl } });
  assert.equal(del.status, 200, del.text);

  await eventually(async () => of(rx.got, tpl).length === 3 && of(rx.got, used.json.id).length === 1
    && of(rx.got, rejected).length === 1 && of(rx.got, cancelled).length === 1, { timeout: 60000, what: "every event" });
  assert.deepEqual(of(rx.got, rejected).map((h) => [h.json.event, h.json.payload.status]), [["DOCUMENT_REJECTED", "REJECTED"]]);
  assert.deepEqual(of(rx.got, cancelled).map((h) => [h.json.event, h.json.payload.status]), [["DOCUMENT_CANCELLED", "CANCELLED"]]);
  assert.deepEqual(of(rx.got, tpl).map((h) => h.json.event), ["TEMPLATE_CREATED", "TEMPLATE_UPDATED", "TEMPLATE_DELETED"]);
  assert.equal(of(rx.got, tpl)[1].json.payload.title, "Plantilla renombrada");
  const use = of(rx.got, used.json.id)[0];
  assert.equal(use.json.event, "TEMPLATE_USED");
  assert.equal(use.json.payload.type, "DOCUMENT");
  for (const h of rx.got) verified(h, hook.secret);
});

test("a failed attempt is retried with the same webhook-id; 410 disables and tells the admins; a call is sent again on request", async () => {
  const { key, email: admin } = newKey();
  const sdk = client(key);
  const flaky = await receiver((n) => (n === 1 ? 500 : 204));
  const hook = await subscribe(key, flaky.url, ["DOCUMENT_CREATED"]);
  const gone = await receiver(() => 410);
  const goneHook = await subscribe(key, gone.url, ["DOCUMENT_CREATED"]);
  const id = await makeEnvelope(sdk, [{ email: uniqueEmail("c"), name: "C", role: "SIGNER" }]);

  await eventually(async () => flaky.got.length === 2, { timeout: 30000, what: "the retry after a 500" });
  assert.equal(flaky.got[0].headers["webhook-id"], flaky.got[1].headers["webhook-id"]);
  for (const h of flaky.got) verified(h, hook.secret);
  const calls = await eventually(async () => {
    const r = await raw("GET", `/webhook/${hook.id}/calls`, { key });
    return r.json.data[0]?.status === "SUCCESS" && r.json;
  }, { what: "the call's success" });
  assert.deepEqual(calls.data[0].attemptHistory.map((a) => a.responseCode), [500, 204]);
  assert.equal(calls.data[0].envelopeId, id);

  await eventually(async () => (await raw("GET", `/webhook/${goneHook.id}`, { key })).json.enabled === false, { what: "the 410 webhook disabled" });
  const disabled = await raw("GET", `/webhook/${goneHook.id}`, { key });
  assert.equal(disabled.json.disabledReason, "GONE");
  assert.equal(gone.got.length, 1, "no attempt after a 410");
  await eventually(async () => (await mailsTo(admin)).some((m) => /webhook/i.test(m.Subject)), { what: "the admins' mail" });
  await makeEnvelope(sdk, [{ email: uniqueEmail("d"), name: "D", role: "SIGNER" }]);
  await eventually(async () => flaky.got.length === 3, { what: "the next event to the live webhook" });
  assert.equal(gone.got.length, 1, "a disabled webhook gets nothing");

  const again = await raw("POST", "/webhook/call/resend", { key, body: { callId: calls.data[0].id } });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.eventId, calls.data[0].eventId);
  await eventually(async () => flaky.got.length === 4, { what: "the call sent again" });
  assert.equal(flaky.got[3].headers["webhook-id"], flaky.got[0].headers["webhook-id"], "a resend is the same event");
});

test("after a rotation both secrets verify; documensoCompatible carries X-Documenso-Secret; the test call is signed", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const rx = await receiver();
  const hook = await subscribe(key, rx.url, ["DOCUMENT_CREATED"]);
  const rotated = await raw("POST", "/webhook/rotate-secret", { key, body: { id: hook.id } });
  assert.equal(rotated.status, 200, rotated.text);
  assert.notEqual(rotated.json.secret, hook.secret);
  await makeEnvelope(sdk, [{ email: uniqueEmail("e"), name: "E", role: "SIGNER" }]);
  await eventually(async () => rx.got.length === 1, { what: "the event after the rotation" });
  assert.equal(rx.got[0].headers["webhook-signature"].split(" ").length, 2);
  verified(rx.got[0], hook.secret);
  verified(rx.got[0], rotated.json.secret);

  const legacy = await receiver();
  const plain = "documenso-shared-secret-1234";
  const compat = await subscribe(key, legacy.url, ["DOCUMENT_CREATED"], { documensoCompatible: true, secret: plain });
  assert.equal(compat.secret, plain);
  await makeEnvelope(sdk, [{ email: uniqueEmail("f"), name: "F", role: "SIGNER" }]);
  await eventually(async () => legacy.got.length === 1, { what: "the Documenso-compatible event" });
  assert.equal(legacy.got[0].headers["x-documenso-secret"], plain);
  verified(legacy.got[0], "whsec_" + Buffer.from(plain).toString("base64"));

  const tested = await raw("POST", "/webhook/test", { key, body: { id: hook.id, event: "DOCUMENT_SIGNED" } });
  assert.equal(tested.status, 200, tested.text);
  assert.equal(tested.json.status, "SUCCESS");
  const sample = rx.got.at(-1);
  assert.equal(sample.json.event, "DOCUMENT_SIGNED");
  verified(sample, rotated.json.secret);
});

test("bad subscriptions are refused naming the field; another team's webhook is not found; a MEMBER may not manage them", async () => {
  const { key, team } = newKey();
  const rx = await receiver();
  for (const [webhookUrl, why] of [["file:///etc/passwd", "a file URL"], ["ftp://127.0.0.1/x", "an FTP URL"], ["not a url", "no URL"],
    ["https://user:pass@example.com/x", "credentials in the URL"]]) {
    const r = await raw("POST", "/webhook/create", { key, body: { webhookUrl, eventTriggers: ["DOCUMENT_SENT"] } });
    assert.equal(r.status, 400, `${why}: ${r.text}`);
    assert.equal(r.json.issues[0].path, "webhookUrl", why);
  }
  const unknown = await raw("POST", "/webhook/create", { key, body: { webhookUrl: rx.url, eventTriggers: ["DOCUMENT_SENT", "DOCUMENT_EXPLODED"] } });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.issues[0].path, "eventTriggers[1]");
  const weak = await raw("POST", "/webhook/create", { key, body: { webhookUrl: rx.url, eventTriggers: ["DOCUMENT_SENT"], secret: "short" } });
  assert.equal(weak.status, 400);
  assert.equal(weak.json.issues[0].path, "secret");

  const hook = await subscribe(key, rx.url, ["DOCUMENT_SENT"]);
  const { key: stranger } = newKey();
  for (const [method, path, body] of [["GET", `/webhook/${hook.id}`], ["GET", `/webhook/${hook.id}/calls`],
    ["POST", "/webhook/update", { id: hook.id, enabled: false }], ["POST", "/webhook/rotate-secret", { id: hook.id }],
    ["POST", "/webhook/test", { id: hook.id, event: "DOCUMENT_SENT" }], ["POST", "/webhook/delete", { id: hook.id }]]) {
    const r = await raw(method, path, { key: stranger, body });
    assert.equal(r.status, 404, `${method} ${path} from another team: ${r.text}`);
  }
  const { key: member } = newKey({ team, role: "MEMBER" });
  const r = await raw("GET", "/webhook", { key: member });
  assert.equal(r.status, 403, r.text);
  const list = await raw("GET", "/webhook", { key });
  assert.equal(list.json.count, 1);
  assert.equal(list.json.data[0].secret, undefined);
  assert.deepEqual((await raw("POST", "/webhook/delete", { key, body: { id: hook.id } })).json, { success: true });
  assert.equal((await raw("GET", `/webhook/${hook.id}`, { key })).status, 404);
});
