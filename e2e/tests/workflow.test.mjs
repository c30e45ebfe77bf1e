// Distribution and the envelope workflow, end to end: the real server, worker, PostgreSQL,
// Temporal dev server and mail sink, driven by the Documenso SDK and the signing API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, eventually, mailsTo, message, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";

const field = (type, extra = {}) => ({ type, page: 1, positionX: 10, positionY: 10, width: 20, height: 5, ...extra });

async function makeEnvelope(sdk, { recipients, meta = {} }) {
  const { id } = await sdk.envelopes.create({
    payload: { title: "Contrato de compraventa", type: "DOCUMENT", recipients, meta },
    files: [{ fileName: "contrato.pdf", content: makePDF([{ texts: [{ x: 72, y: 700, text: "Contrato" }] }]) }],
  });
  return id;
}

const status = async (sdk, id) => (await sdk.envelopes.get({ envelopeId: id })).status;

test("sequential: an approver, then two signers, to COMPLETED, with mails and the audit log", async () => {
  const { key, email: ownerEmail } = newKey();
  const sdk = client(key);
  const approver = uniqueEmail("aprobador"), first = uniqueEmail("firma1"), second = uniqueEmail("firma2"), cc = uniqueEmail("copia");
  const id = await makeEnvelope(sdk, {
    meta: { signingOrder: "SEQUENTIAL", language: "es" },
    recipients: [
      { email: approver, name: "Aprobador", role: "APPROVER", signingOrder: 1 },
      { email: first, name: "Primera Firma", role: "SIGNER", signingOrder: 2,
        fields: [field("SIGNATURE"), field("TEXT", { positionY: 30, fieldMeta: { type: "text", required: true } }), field("DATE", { positionY: 50 })] },
      { email: second, name: "Segunda Firma", role: "SIGNER", signingOrder: 3, fields: [field("SIGNATURE")] },
      { email: cc, name: "Copia", role: "CC" },
    ],
  });
  const dist = await sdk.envelopes.distribute({ envelopeId: id, meta: { subject: "Firme por favor" } });
  assert.equal(dist.success, true);
  assert.equal(dist.id, id);
  assert.equal(dist.recipients.length, 4);
  for (const r of dist.recipients) assert.match(r.signingUrl, new RegExp(`/sign/${r.token}$`));
  const tok = Object.fromEntries(dist.recipients.map((r) => [r.email, r.token]));
  assert.equal(await status(sdk, id), "PENDING");

  const requests = await eventually(async () => (await mailsTo(approver)).length === 1 && mailsTo(approver), { what: "approver's mail" });
  assert.equal(requests[0].Subject, "Firme por favor");
  assert.equal((await mailsTo(first)).length, 0, "the first signer waits for the approver");

  const early = await signing("POST", tok[first], "/complete");
  assert.equal(early.status, 400);
  assert.equal(early.json.code, "RECIPIENT_OUT_OF_TURN");
  const view = await signing("GET", tok[first]);
  assert.equal(view.json.mayActNow, false);
  assert.equal(view.json.waiting, "RECIPIENT_OUT_OF_TURN");

  const approverView = await signing("GET", tok[approver]);
  assert.equal(approverView.status, 200);
  assert.equal(approverView.headers.get("referrer-policy"), "no-referrer");
  assert.equal(approverView.json.mayActNow, true);
  assert.equal(approverView.json.recipient.readStatus, "OPENED");
  const pdf = await fetch(new URL(approverView.json.envelope.envelopeItems[0].url, process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080"));
  assert.equal(pdf.headers.get("content-type"), "application/pdf");
  assert.equal((await pdf.arrayBuffer()).byteLength > 100, true);

  const approved = await signing("POST", tok[approver], "/complete");
  assert.equal(approved.status, 200, approved.text);
  await eventually(async () => (await mailsTo(first)).length === 1, { what: "first signer's mail" });
  assert.equal((await mailsTo(second)).length, 0);

  const firstView = await signing("GET", tok[first]);
  const byType = Object.fromEntries(firstView.json.fields.map((f) => [f.type, f]));
  const missing = await signing("POST", tok[first], "/complete");
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, "RECIPIENT_HAS_UNSIGNED_FIELDS");
  let r = await signing("POST", tok[first], "/fields", { fieldId: byType.SIGNATURE.id, value: "Primera Firma" });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.inserted, true);
  r = await signing("POST", tok[first], "/fields", { fieldId: byType.DATE.id, value: "2020-01-01" });
  assert.equal(r.status, 400, "DATE is filled by Sobre");
  r = await signing("POST", tok[first], "/fields", { fieldId: byType.TEXT.id, value: "Gerente" });
  assert.equal(r.status, 200);
  r = await signing("POST", tok[first], "/complete");
  assert.equal(r.status, 200, r.text);
  await eventually(async () => (await mailsTo(second)).length === 1, { what: "second signer's mail" });

  const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
  const secondView = await signing("GET", tok[second]);
  const broken = "data:image/png;base64," + Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.alloc(16)]).toString("base64");
  const refused = await signing("POST", tok[second], "/fields", { fieldId: secondView.json.fields[0].id, value: broken });
  assert.equal(refused.status, 400, "a PNG header without a readable image is refused");
  r = await signing("POST", tok[second], "/fields", { fieldId: secondView.json.fields[0].id, value: png });
  assert.equal(r.status, 200, r.text);
  r = await signing("POST", tok[second], "/complete");
  assert.equal(r.status, 200, r.text);
  await eventually(async () => (await status(sdk, id)) === "COMPLETED", { what: "COMPLETED" });

  const e = await sdk.envelopes.get({ envelopeId: id });
  assert.ok(e.completedAt);
  const date = e.fields.find((f) => f.type === "DATE");
  assert.equal(date.inserted, true);
  assert.match(date.customText, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} (AM|PM)$/);
  for (const rec of e.recipients.filter((x) => x.role !== "CC")) assert.equal(rec.signingStatus, "SIGNED");

  for (const addr of [approver, first, second, cc]) {
    const done = await eventually(async () => (await mailsTo(addr)).find((m) => m.Subject.startsWith("Completado")), { what: `completion mail to ${addr}` });
    const full = await message(done.ID);
    assert.equal(full.Attachments.length, 1, "the document is attached");
    assert.equal(full.Attachments[0].ContentType, "application/pdf");
  }
  await eventually(async () => (await mailsTo(ownerEmail)).some((m) => m.Subject.startsWith("Completado")), { what: "owner's completion mail" });
  const all = (await Promise.all([approver, first, second, cc, ownerEmail].map(mailsTo))).flat();
  assert.equal(new Set(all.map((m) => m.MessageID)).size, all.length, "every mail has its own Message-ID");

  const log = await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 });
  const types = log.data.map((x) => x.type);
  for (const t of ["DOCUMENT_SENT", "EMAIL_SENT", "DOCUMENT_OPENED", "DOCUMENT_FIELD_INSERTED", "DOCUMENT_FIELDS_AUTO_INSERTED",
    "DOCUMENT_RECIPIENT_COMPLETED", "DOCUMENT_COMPLETED"]) {
    assert.ok(types.includes(t), `audit log lacks ${t}: ${types}`);
  }
  assert.equal(types.filter((t) => t === "DOCUMENT_RECIPIENT_COMPLETED").length, 3);

  const again = await signing("POST", tok[second], "/complete");
  assert.equal(again.status, 400);
  assert.equal(again.json.code, "ENVELOPE_COMPLETED");
});

test("a rejection ends the envelope REJECTED and tells the others", async () => {
  const { key, email: ownerEmail } = newKey();
  const sdk = client(key);
  const a = uniqueEmail("a"), b = uniqueEmail("b");
  const id = await makeEnvelope(sdk, { recipients: [
    { email: a, name: "A", role: "SIGNER", fields: [field("SIGNATURE")] },
    { email: b, name: "B", role: "SIGNER", fields: [field("SIGNATURE")] },
  ] });
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  const tok = Object.fromEntries(dist.recipients.map((r) => [r.email, r.token]));
  await eventually(async () => (await mailsTo(b)).length === 1, { what: "B's request" });
  const noReason = await signing("POST", tok[a], "/reject", { reason: "" });
  assert.equal(noReason.status, 400);
  const r = await signing("POST", tok[a], "/reject", { reason: "El monto es incorrecto" });
  assert.equal(r.status, 200, r.text);
  await eventually(async () => (await status(sdk, id)) === "REJECTED", { what: "REJECTED" });
  const e = await sdk.envelopes.get({ envelopeId: id });
  const ra = e.recipients.find((x) => x.email === a);
  assert.equal(ra.signingStatus, "REJECTED");
  assert.equal(ra.rejectionReason, "El monto es incorrecto");
  await eventually(async () => (await mailsTo(b)).some((m) => m.Subject.includes("cancelled")), { what: "B's cancellation notice" });
  await eventually(async () => (await mailsTo(a)).some((m) => m.Subject.startsWith("You rejected")), { what: "A's confirmation" });
  await eventually(async () => (await mailsTo(ownerEmail)).some((m) => m.Subject.includes("was rejected")), { what: "owner's notice" });
  const late = await signing("POST", tok[b], "/complete");
  assert.equal(late.json.code, "ENVELOPE_REJECTED");
  // The SDK's schema of DOCUMENT_COMPLETED predates isRejected and strips it: read the log raw.
  const log = (await raw("GET", `/envelope/${id}/audit-log?perPage=100`, { key })).json;
  const done = log.data.find((x) => x.type === "DOCUMENT_COMPLETED");
  assert.equal(done.data.isRejected, true);
  assert.equal(done.data.rejectionReason, "El monto es incorrecto");
});

test("cancel ends a PENDING envelope CANCELLED; fields are fixed once sent", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const a = uniqueEmail("a");
  const id = await makeEnvelope(sdk, { recipients: [{ email: a, name: "A", role: "SIGNER", fields: [field("SIGNATURE")] }] });
  const draftCancel = await raw("POST", "/envelope/cancel", { key, body: { envelopeId: id } });
  assert.equal(draftCancel.status, 400, "a DRAFT cannot be cancelled");
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  const e = await sdk.envelopes.get({ envelopeId: id });
  const fixed = await raw("POST", "/envelope/field/update-many", { key, body: { envelopeId: id, data: [{ id: e.fields[0].id, type: "SIGNATURE", positionX: 50 }] } });
  assert.equal(fixed.status, 400);
  assert.equal(fixed.json.code, "ENVELOPE_NOT_DRAFT");
  assert.deepEqual(await sdk.envelope.envelopeCancel({ envelopeId: id, reason: "Archivo equivocado" }), { success: true });
  assert.equal(await status(sdk, id), "CANCELLED");
  await eventually(async () => (await mailsTo(a)).some((m) => m.Subject.includes("cancelled")), { what: "cancel notice" });
  const late = await signing("POST", dist.recipients[0].token, "/complete");
  assert.equal(late.json.code, "ENVELOPE_CANCELLED");
  const update = await raw("POST", "/envelope/recipient/update-many", { key, body: { envelopeId: id, data: [{ id: e.recipients[0].id, name: "Z" }] } });
  assert.equal(update.status, 400);
  const again = await raw("POST", "/envelope/cancel", { key, body: { envelopeId: id } });
  assert.equal(again.status, 400);
  const log = await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 });
  assert.deepEqual(log.data.find((x) => x.type === "DOCUMENT_CANCELLED").data, { reason: "Archivo equivocado" });
});

test("distribution NONE mails no recipient and still signs through the returned links", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const a = uniqueEmail("none");
  const id = await makeEnvelope(sdk, { meta: { distributionMethod: "NONE" }, recipients: [{ email: a, name: "A", role: "SIGNER", fields: [field("SIGNATURE")] }] });
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  const token = dist.recipients[0].token;
  let e = await sdk.envelopes.get({ envelopeId: id });
  assert.equal(e.status, "PENDING");
  assert.equal(e.recipients[0].sendStatus, "NOT_SENT");
  await signing("GET", token);
  e = await sdk.envelopes.get({ envelopeId: id });
  assert.equal(e.recipients[0].sendStatus, "SENT", "opening the link counts as sent");
  const view = await signing("GET", token);
  await signing("POST", token, "/fields", { fieldId: view.json.fields[0].id, value: "A" });
  const done = await signing("POST", token, "/complete");
  assert.equal(done.status, 200, done.text);
  await eventually(async () => (await status(sdk, id)) === "COMPLETED", { what: "COMPLETED" });
  assert.equal((await mailsTo(a)).length, 0, "no mail under NONE");
});

test("distribute refuses a signer without a signature field", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const id = await makeEnvelope(sdk, { recipients: [{ email: uniqueEmail("x"), name: "X", role: "SIGNER", fields: [field("TEXT")] }] });
  const res = await raw("POST", "/envelope/distribute", { key, body: { envelopeId: id } });
  assert.equal(res.status, 400);
  assert.equal(res.json.code, "MISSING_SIGNATURE_FIELD");
  assert.equal(await status(sdk, id), "DRAFT");
});

test("a rejection recorded through the API is external and attributed", async () => {
  const { key, email: ownerEmail } = newKey();
  const sdk = client(key);
  const id = await makeEnvelope(sdk, { recipients: [{ email: uniqueEmail("x"), name: "X", role: "SIGNER", fields: [field("SIGNATURE")] }] });
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  const rid = dist.recipients[0].id;
  const rejected = await sdk.envelopeRecipients.envelopeRecipientRejectOnBehalfOf({
    recipientId: rid, requestBody: { envelopeId: id, reason: "Rechazado por teléfono", actAsEmail: ownerEmail },
  });
  assert.equal(rejected.signingStatus, "REJECTED");
  assert.equal(rejected.fields.length, 1);
  await eventually(async () => (await status(sdk, id)) === "REJECTED", { what: "REJECTED" });
  const log = await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 });
  const entry = log.data.find((x) => x.type === "DOCUMENT_RECIPIENT_REJECTED");
  assert.equal(entry.data.isExternal, true);
  assert.equal(entry.data.reason, "Rechazado por teléfono");
  assert.equal(entry.email, ownerEmail);
});

test("reject on a recipient's behalf answers the envelope's state when it is not PENDING", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const signer = uniqueEmail("onbehalf");
  const id = await makeEnvelope(sdk, { recipients: [{ email: signer, name: "Sol", role: "SIGNER", fields: [field("SIGNATURE")] }] });
  const recipientId = (await sdk.envelopes.get({ envelopeId: id })).recipients[0].id;
  const draft = await raw("POST", `/envelope/recipient/${recipientId}/reject`, { key, body: { envelopeId: id, reason: "no" } });
  assert.equal(draft.status, 400, draft.text);
  assert.equal(draft.json.code, "ENVELOPE_DRAFT");
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  const tok = dist.recipients[0].token;
  const view = await signing("GET", tok);
  await signing("POST", tok, "/fields", { fieldId: view.json.fields[0].id, value: "Sol" });
  assert.equal((await signing("POST", tok, "/complete")).status, 200);
  await eventually(async () => (await status(sdk, id)) === "COMPLETED", { what: "COMPLETED" });
  const done = await raw("POST", `/envelope/recipient/${recipientId}/reject`, { key, body: { envelopeId: id, reason: "no" } });
  assert.equal(done.status, 400, done.text);
  assert.equal(done.json.code, "ENVELOPE_COMPLETED");
});
