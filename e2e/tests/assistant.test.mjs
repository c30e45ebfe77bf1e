// An ASSISTANT prepares the document for the signers after it, end to end: the envelope made and
// sent with the Documenso SDK, the assistant and the signer acting through the signing API, the
// audit log read back with the SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, eventually, newKey, signing, uniqueEmail } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";

const field = (type, extra = {}) => ({ type, page: 1, positionX: 10, positionY: 10, width: 20, height: 5, ...extra });

test("an assistant fills a later signer's text, not its signature; the signer completes with it", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const assistant = uniqueEmail("asistente"), signer = uniqueEmail("firmante");
  const { id } = await sdk.envelopes.create({
    payload: {
      title: "Arriendo", type: "DOCUMENT", meta: { signingOrder: "SEQUENTIAL" },
      recipients: [
        { email: assistant, name: "Asistente", role: "ASSISTANT", signingOrder: 1 },
        { email: signer, name: "Firmante", role: "SIGNER", signingOrder: 2,
          fields: [field("SIGNATURE"), field("TEXT", { positionY: 30, fieldMeta: { type: "text", required: true } })] },
      ],
    },
    files: [{ fileName: "arriendo.pdf", content: makePDF([{ texts: [{ x: 72, y: 700, text: "Arriendo" }] }]) }],
  });
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  const tok = Object.fromEntries(dist.recipients.map((r) => [r.email, r.token]));
  const signerId = dist.recipients.find((r) => r.email === signer).id;

  // The assistant sees the signer's TEXT, labelled with whom it is for, and not its SIGNATURE.
  const view = await signing("GET", tok[assistant]);
  assert.equal(view.status, 200, view.text);
  assert.equal(view.json.mayActNow, true);
  assert.deepEqual(view.json.fields.map((f) => [f.type, f.recipientId]), [["TEXT", signerId]]);
  assert.deepEqual(view.json.assisting.map((r) => [r.id, r.name]), [[signerId, "Firmante"]]);
  const text = view.json.fields[0].id;
  const signerView = await signing("GET", tok[signer]);
  const signature = signerView.json.fields.find((f) => f.type === "SIGNATURE").id;

  let r = await signing("POST", tok[assistant], "/fields", { fieldId: signature, value: "Firmante" });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.code, "INVALID_REQUEST");
  r = await signing("POST", tok[assistant], "/fields", { fieldId: text, value: "Departamento 12" });
  assert.equal(r.status, 200, r.text);
  r = await signing("POST", tok[assistant], "/complete");
  assert.equal(r.status, 200, r.text);

  // The SDK parses the log: the value is DOCUMENT_FIELD_PREFILLED, by the assistant.
  const log = await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 });
  const prefilled = log.data.filter((e) => e.type === "DOCUMENT_FIELD_PREFILLED");
  assert.equal(prefilled.length, 1);
  assert.equal(prefilled[0].data.recipientEmail, assistant);
  assert.equal(prefilled[0].data.field.type, "TEXT");
  assert.equal(prefilled[0].data.field.data, "Departamento 12");
  assert.equal(log.data.filter((e) => e.type === "DOCUMENT_FIELD_INSERTED").length, 0);

  // The signer sees the value as its own, signs and completes without typing it.
  const mine = (await signing("GET", tok[signer])).json.fields.find((f) => f.id === text);
  assert.equal(mine.inserted, true);
  assert.equal(mine.customText, "Departamento 12");
  r = await signing("POST", tok[signer], "/fields", { fieldId: signature, value: "Firmante" });
  assert.equal(r.status, 200, r.text);
  r = await signing("POST", tok[signer], "/complete");
  assert.equal(r.status, 200, r.text);
  await eventually(async () => (await sdk.envelopes.get({ envelopeId: id })).status === "COMPLETED", { what: "COMPLETED" });

  // Too late: the assistant has completed, the signer signed.
  r = await signing("POST", tok[assistant], "/fields", { fieldId: text, value: "otro" });
  assert.notEqual(r.status, 200);
});
