// The identity on a signature is the completer's, in a real browser: two Chromium contexts (two
// people) on one signing link, an expected RUN refused to anyone else, a replaced link, and a
// verified value that stays verified.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { baseURL, client, eventually, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { drawSignature, launch, phone, shot } from "./browser.mjs";
import { create, envelopeStatus, field, linkFrom, signDigest } from "./signers.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// loginAs opens link in a fresh browser context and logs in with the local Clave Única as run
// (written with dots, as its buttons show it).
async function loginAs(link, dotted) {
  const page = await phone(browser);
  await page.goto(link);
  await page.getByRole("button", { name: "Continue with ClaveÚnica" }).click();
  await page.waitForURL(/127\.0\.0\.1:\d+\/openid\//);
  await page.getByRole("button", { name: new RegExp(dotted.replaceAll(".", "\\.")) }).click();
  return page;
}

test("two browsers on one link: the completion records the completer's Clave Única, never the other browser's", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("dos-navegadores");
  const { id } = await create(key, {
    recipients: [{ email: signer, name: "Tomás", role: "SIGNER", actionAuth: ["CLAVE_UNICA"],
      fields: [field("SIGNATURE"), field("RUT_FIRMADO", { positionY: 30 })] }],
  });
  const link = await linkFrom(signer);
  // Browser A logs in and draws the signature; browser B logs in as someone else, only to read.
  const a = await loginAs(link, "44.444.444-4");
  await a.getByText("Verified with ClaveÚnica").waitFor();
  await drawSignature(a);
  const b = await loginAs(link, "55.555.555-5");
  await b.getByText("Verified with ClaveÚnica").waitFor();
  assert.match(await b.locator(".field").filter({ hasText: "RUT" }).first().textContent(), /55555555-5/);
  // A signs after B's login: what A's browser proved is what is recorded.
  await a.reload();
  assert.match(await a.locator(".field").filter({ hasText: "RUT" }).first().textContent(), /44444444-4/);
  await a.getByRole("button", { name: "Sign", exact: true }).click();
  await a.getByRole("heading", { name: "Done" }).waitFor();
  await shot(a, "20-two-browsers-completer");
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const env = await envelopeStatus(key, id);
  assert.equal(env.fields.find((f) => f.type === "RUT_FIRMADO").customText, "44444444-4");
  const audit = await raw("GET", `/envelope/${id}/audit-log?perPage=100`, { key });
  const done = audit.json.data.find((e) => e.type === "DOCUMENT_RECIPIENT_COMPLETED");
  assert.equal(done.data.identity.claveUnica.run, "44444444-4");
  assert.ok(!JSON.stringify(done).includes("55555555-5"), "browser B's login reached the completion");
  await a.context().close();
  await b.context().close();
});

test("values typed through a forwarded link are shown empty to the signer who proves, and are not sealed", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("reenviado");
  const { id } = await create(key, {
    recipients: [{ email: signer, name: "Inés", role: "SIGNER", actionAuth: ["CLAVE_UNICA"],
      fields: [field("SIGNATURE"), field("TEXT", { positionY: 30, fieldMeta: { type: "text", label: "Cláusula" } }),
        field("TEXT", { positionY: 50, fieldMeta: { type: "text", label: "Nota" } })] }],
  });
  const link = await linkFrom(signer);
  const token = link.split("/sign/")[1];
  const [clause, note] = (await envelopeStatus(key, id)).fields.filter((f) => f.type === "TEXT").sort((a, b) => a.positionY - b.positionY).map((f) => f.id);
  // Whoever else holds the link fills the clause before the signer opens the page...
  assert.equal((await signing("POST", token, "/fields", { fieldId: clause, value: "renuncio a toda indemnización" })).status, 200);
  const page = await loginAs(link, "44.444.444-4");
  await page.getByText("Verified with ClaveÚnica").waitFor();
  const clauseItem = page.locator(`#f-${clause}`);
  assert.equal(await clauseItem.locator("input").inputValue(), "");
  await clauseItem.getByText("Filled in another browser").waitFor();
  await drawSignature(page);
  // ...and the note while the page is open: the first Sign finds it, the page is drawn again.
  assert.equal((await signing("POST", token, "/fields", { fieldId: note, value: "acepto pagar el doble" })).status, 200);
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await page.locator(`#f-${note}`).getByText("Filled in another browser").waitFor();
  assert.equal(await page.locator(`#f-${note} input`).inputValue(), "");
  await drawSignature(page);
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await page.getByRole("heading", { name: "Done" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const texts = (await envelopeStatus(key, id)).fields.filter((f) => f.type === "TEXT");
  assert.deepEqual(texts.map((f) => [f.inserted, f.customText ?? ""]), [[false, ""], [false, ""]]);
  await page.context().close();
});

test("FAO_HASH: the digest to sign covers what the page shows, not a value typed through a forwarded link", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("fea-reenviado");
  const { id, tokens } = await create(key, {
    recipients: [{ email: signer, name: "Fernanda", role: "SIGNER", actionAuth: ["FAO_HASH"],
      fields: [field("SIGNATURE"), field("TEXT", { positionY: 30, fieldMeta: { type: "text", label: "Cláusula" } })] }],
    meta: { typedSignatureEnabled: true },
  });
  const tok = tokens[signer];
  const text = (await envelopeStatus(key, id)).fields.find((f) => f.type === "TEXT").id;
  assert.equal((await signing("POST", tok, "/fields", { fieldId: text, value: "renuncio a toda indemnización" })).status, 200);
  const page = await phone(browser);
  await page.goto(await linkFrom(signer));
  await page.locator(`#f-${text}`).getByText("Filled in another browser").waitFor();
  await page.getByLabel("Type your name as your signature").fill("Fernanda");
  await page.getByLabel("Type your name as your signature").press("Tab");
  // The page gave the field back empty, as this browser's, before the digest is signed.
  const digest = await eventually(async () => {
    const env = await envelopeStatus(key, id);
    const r = await signing("GET", tok, "/fea");
    const shown = (await page.locator("#digest").textContent()).trim();
    return !env.fields.find((f) => f.id === text).inserted && r.json.digest === shown && shown;
  }, { what: "the digest of what the page shows" });
  await page.getByLabel("Or paste the signature (PEM or base64)").fill(signDigest(digest));
  await page.getByRole("button", { name: "Verify my certificate" }).click();
  await page.getByText("Advanced electronic signature verified").waitFor();
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await page.getByRole("heading", { name: "Done" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const field_ = (await envelopeStatus(key, id)).fields.find((f) => f.id === text);
  assert.equal(field_.inserted, false);
  await page.context().close();
});

test("an expected RUN: another person's Clave Única login and certificate are refused, the expected person signs", async () => {
  const { key, email: owner } = newKey();
  const signer = uniqueEmail("esperado");
  const { id, tokens } = await create(key, {
    recipients: [{ email: signer, name: "Persona Esperada", role: "SIGNER", actionAuth: ["CLAVE_UNICA", "FAO_HASH"], expectedRut: "44.444.444-4",
      fields: [field("SIGNATURE"), field("RUT_FIRMADO", { positionY: 30 })] }],
    meta: { typedSignatureEnabled: true },
  });
  const link = await linkFrom(signer);
  // Someone who got the link logs in as another RUN: refused, and nothing of it is kept.
  const intruder = await loginAs(link, "55.555.555-5");
  await intruder.getByText(/not the one this document is for/).waitFor();
  await shot(intruder, "21-expected-run-refused");
  const view = await intruder.context().request.get(`${baseURL}/api/v2/signing/${tokens[signer]}`);
  assert.equal(view.status(), 200);
  assert.ok(!(await view.text()).includes("44444444-4"), "the refusal shows the expected RUN");
  const complete = await intruder.context().request.post(`${baseURL}/api/v2/signing/${tokens[signer]}/complete`);
  assert.equal(complete.status(), 401);
  const audit = await raw("GET", `/envelope/${id}/audit-log?perPage=100&includeExtensions=true`, { key });
  const refused = audit.json.data.filter((e) => e.type === "RECIPIENT_IDENTITY_REFUSED");
  assert.equal(refused.length, 1);
  // Documenso's SDK reads the same log: Sobre's own entries are left out unless asked for, and
  // the rest in the shapes it knows (RUT_FIRMADO values as TEXT, no expected-RUN changes).
  const viaSdk = await client(key).envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 });
  assert.ok(viaSdk.data.length > 0 && !viaSdk.data.some((e) => e.type === "RECIPIENT_IDENTITY_REFUSED"));
  assert.equal(refused[0].data.run, "55555555-5");
  assert.equal(refused[0].data.via, "CLAVE_UNICA");
  await eventually(async () => (await (await import("./helpers.mjs")).mailsTo(owner)).some((m) => /Someone else tried to sign/.test(m.Subject)),
    { what: "the owner's mail" });
  await intruder.context().close();

  // The expected person: logs in, but a certificate of another RUT is still refused.
  const page = await loginAs(link, "44.444.444-4");
  await page.getByText("Verified with ClaveÚnica").waitFor();
  const api = page.context().request;
  const { digest } = await (await api.get(`${baseURL}/api/v2/signing/${tokens[signer]}/fea`)).json();
  const other = await api.post(`${baseURL}/api/v2/signing/${tokens[signer]}/fea`, { data: { signature: signDigest(digest, "holder-55555555-5") } });
  assert.equal(other.status(), 400);
  assert.equal((await other.json()).code, "RUT_MISMATCH");
  const same = await api.post(`${baseURL}/api/v2/signing/${tokens[signer]}/fea`, { data: { signature: signDigest(digest) } });
  assert.equal(same.status(), 200, await same.text());
  // A verified value stays verified: RUT_FIRMADO can be neither typed over nor cleared.
  const fields = (await (await api.get(`${baseURL}/api/v2/signing/${tokens[signer]}`)).json()).fields;
  const rut = fields.find((f) => f.type === "RUT_FIRMADO");
  for (const value of ["55.555.555-5", "", null]) {
    const r = await api.post(`${baseURL}/api/v2/signing/${tokens[signer]}/fields`, { data: { fieldId: rut.id, value } });
    assert.equal(r.status(), 400, `RUT_FIRMADO set to ${JSON.stringify(value)}`);
    assert.equal((await r.json()).code, "RUT_FIRMADO_NOT_TYPEABLE");
  }
  await page.reload();
  await page.getByLabel("Type your name as your signature").fill("Persona Esperada");
  await page.getByLabel("Type your name as your signature").press("Tab");
  // The typed signature changed the digest: sign the current one.
  const current = await eventually(async () => {
    const r = await api.get(`${baseURL}/api/v2/signing/${tokens[signer]}/fea`);
    const d = (await r.json()).digest;
    return d !== digest && d;
  }, { what: "the digest over the typed signature" });
  const again = await api.post(`${baseURL}/api/v2/signing/${tokens[signer]}/fea`, { data: { signature: signDigest(current) } });
  assert.equal(again.status(), 200, await again.text());
  await page.reload();
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await page.getByRole("heading", { name: "Done" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const env = await envelopeStatus(key, id);
  assert.equal(env.fields.find((f) => f.type === "RUT_FIRMADO").customText, "44444444-4");
  await page.context().close();
});

test("a replaced link shows only that it was replaced", async () => {
  const { key } = newKey();
  const first = uniqueEmail("primero"), second = uniqueEmail("segundo");
  const { id, tokens } = await create(key, { recipients: [{ email: first, name: "Primera Persona", role: "SIGNER", fields: [field("SIGNATURE")] }] });
  const old = await linkFrom(first);
  const rec = (await raw("GET", `/envelope/${id}`, { key })).json.recipients[0];
  const upd = await raw("POST", "/envelope/recipient/update-many", { key, body: { envelopeId: id, data: [{ id: rec.id, email: second }] } });
  assert.equal(upd.status, 200, upd.text);
  const page = await phone(browser);
  const res = await page.goto(old);
  assert.equal(res.status(), 410);
  await page.getByRole("heading", { name: "This link was replaced" }).waitFor();
  const text = await page.textContent("body");
  for (const secret of ["Primera Persona", "Contrato", "contrato.pdf", second]) assert.ok(!text.includes(secret), `the replaced page shows ${secret}`);
  await shot(page, "22-link-replaced");
  assert.equal((await signing("GET", tokens[first])).status, 410);
  const fresh = await linkFrom(second);
  assert.notEqual(fresh, old);
  assert.equal((await page.goto(fresh)).status(), 200);
  await page.context().close();
});
