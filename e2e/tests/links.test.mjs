// Who may sign: changing a recipient's email or authentication replaces its signing link, and a
// recipient may name the RUN its signer must prove (expectedRut, beyond Documenso).
import { test } from "node:test";
import assert from "node:assert/strict";
import { baseURL, client, eventually, mailsTo, message, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";

const field = (type, extra = {}) => ({ type, page: 1, positionX: 10, positionY: 10, width: 20, height: 5, ...extra });
const pdf = () => makePDF([{ texts: [{ x: 72, y: 700, text: "Contrato de arriendo" }] }]);

// linksIn returns the signing links of the mails to address, oldest first.
async function linksIn(address) {
  const out = [];
  for (const m of await mailsTo(address)) {
    const link = (await message(m.ID)).Text.match(/https?:\/\/\S+\/sign\/([A-Za-z0-9_-]+)/);
    if (link) out.push(link[1]);
  }
  return out;
}

test("changing a recipient's email replaces its link: the new address is mailed a new one, the old one only says it was replaced", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const wrong = uniqueEmail("equivocado"), right = uniqueEmail("correcto");
  const { id } = await sdk.envelopes.create({
    payload: { title: "Arriendo Ñuñoa", type: "DOCUMENT", recipients: [{ email: wrong, name: "Inquilina", role: "SIGNER", fields: [field("SIGNATURE")] }] },
    files: [{ fileName: "arriendo.pdf", content: pdf() }],
  });
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  const recipientId = dist.recipients[0].id;
  const [oldToken] = await eventually(async () => { const l = await linksIn(wrong); return l.length === 1 && l; }, { what: "the first request" });
  assert.equal(oldToken, dist.recipients[0].token);
  assert.equal((await fetch(`${baseURL}/sign/${oldToken}`)).status, 200);

  // A name alone does not change who signs: same link, no new mail.
  await sdk.envelopes.recipients.updateMany({ envelopeId: id, data: [{ id: recipientId, name: "Inquilina Pérez" }] });
  assert.equal((await signing("GET", oldToken)).status, 200);

  await sdk.envelopes.recipients.updateMany({ envelopeId: id, data: [{ id: recipientId, email: right }] });
  const [newToken] = await eventually(async () => { const l = await linksIn(right); return l.length === 1 && l; }, { what: "the new address's request" });
  assert.notEqual(newToken, oldToken);
  const got = await sdk.envelopes.recipients.get({ recipientId });
  assert.equal(got.token, newToken);
  assert.equal(got.email, right);

  const old = await fetch(`${baseURL}/sign/${oldToken}`);
  const page = await old.text();
  assert.equal(old.status, 410);
  assert.match(page, /replaced|reemplazado/);
  for (const secret of ["Arriendo", "Inquilina", "arriendo.pdf", right]) assert.ok(!page.includes(secret), `the replaced link's page shows ${secret}`);
  const gone = await signing("GET", oldToken);
  assert.equal(gone.status, 410);
  assert.equal(gone.json.code, "SIGNING_LINK_REPLACED");
  assert.equal((await signing("POST", oldToken, "/complete")).status, 410);
  assert.equal((await fetch(`${baseURL}/sign/${newToken}`)).status, 200);
  assert.equal((await linksIn(wrong)).length, 1, "the old address gets nothing more");

  const audit = await raw("GET", `/envelope/${id}/audit-log`, { key });
  assert.equal(audit.status, 200, audit.text);
  const updated = audit.json.data.filter((e) => e.type === "RECIPIENT_UPDATED");
  assert.equal(updated.length, 2, "a name change and an email change");
  assert.equal(updated.filter((e) => e.data.linkReplaced === true).length, 1, "only the email change replaced the link");
});

test("expectedRut is normalised, kept, returned, needs Clave Única or FAO_HASH, and a malformed one is a 400 naming it", async () => {
  const { key } = newKey();
  const create = (recipients) => {
    const form = new FormData();
    form.append("payload", JSON.stringify({ title: "Poder", type: "DOCUMENT", recipients }));
    form.append("files", new Blob([pdf()], { type: "application/pdf" }), "poder.pdf");
    return raw("POST", "/envelope/create", { key, body: form });
  };
  const bad = await create([{ email: uniqueEmail("a"), name: "A", role: "SIGNER", expectedRut: "11.111.111-2" }]);
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, "INVALID_BODY");
  assert.ok(bad.json.issues.some((i) => i.path === "recipients.0.expectedRut" || i.path === "recipients[0].expectedRut"), JSON.stringify(bad.json.issues));

  // Only Clave Única and FAO_HASH prove a RUN: an expected RUN without either is refused.
  const unprovable = await create([{ email: uniqueEmail("d"), name: "D", role: "SIGNER", expectedRut: "11111111-1" }]);
  assert.equal(unprovable.status, 400);
  assert.ok(unprovable.json.issues.some((i) => /recipients.0.expectedRut|recipients\[0\].expectedRut/.test(i.path) && /CLAVE_UNICA or FAO_HASH/.test(i.message)), JSON.stringify(unprovable.json.issues));

  const ok = await create([
    { email: uniqueEmail("b"), name: "B", role: "SIGNER", actionAuth: ["CLAVE_UNICA"], expectedRut: " 11.111.111-1 " },
    { email: uniqueEmail("c"), name: "C", role: "SIGNER", actionAuth: ["FAO_HASH"] },
    { email: uniqueEmail("e"), name: "E", role: "SIGNER" },
  ]);
  assert.equal(ok.status, 200, ok.text);
  const e = await raw("GET", `/envelope/${ok.json.id}`, { key });
  const byName = Object.fromEntries(e.json.recipients.map((r) => [r.name, r]));
  assert.equal(byName.B.expectedRut, "11111111-1");
  assert.equal(byName.C.expectedRut, null);
  // A plain envelope, as any Documenso client makes it, reads through the SDK with expectedRut: null.
  const sdk = client(key);
  const { id: plainId } = await sdk.envelopes.create({
    payload: { title: "Simple", type: "DOCUMENT", recipients: [{ email: uniqueEmail("f"), name: "F", role: "SIGNER" }] },
    files: [{ fileName: "simple.pdf", content: pdf() }],
  });
  const plain = await sdk.envelopes.get({ envelopeId: plainId });
  assert.equal(plain.recipients.length, 1);
  assert.equal((await raw("GET", `/envelope/${plainId}`, { key })).json.recipients[0].expectedRut, null);

  // Set, then cleared, by update; refused where nothing would prove it.
  const upd = await raw("POST", "/envelope/recipient/update-many", { key, body: { envelopeId: ok.json.id, data: [{ id: byName.C.id, expectedRut: "22222222-2" }] } });
  assert.equal(upd.status, 200, upd.text);
  assert.equal(upd.json.data[0].expectedRut, "22222222-2");
  const cleared = await raw("POST", "/envelope/recipient/update-many", { key, body: { envelopeId: ok.json.id, data: [{ id: byName.C.id, expectedRut: null }] } });
  assert.equal(cleared.json.data[0].expectedRut, null);
  const refused = await raw("POST", "/envelope/recipient/update-many", { key, body: { envelopeId: ok.json.id, data: [{ id: byName.E.id, expectedRut: "22222222-2" }] } });
  assert.equal(refused.status, 400, refused.text);
});
