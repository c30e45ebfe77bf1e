// Direct links of templates: made, read, switched off and removed with the Documenso SDK; the
// public page /d/{token} filled and signed in Debian's Chromium; the document made for the
// visitor sent to the template's other signer, signed by them and COMPLETED.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { baseURL, client, eventually, mailsTo, newKey, raw, uniqueEmail } from "./helpers.mjs";
import { envelopeStatus, linkFrom } from "./signers.mjs";
import { axe, drawSignature, launch, overflows, phone, shot } from "./browser.mjs";
import { makePDF } from "./pdf.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const box = (type, y, fieldMeta) => ({ type, page: 1, positionX: 10, positionY: y, width: 25, height: 6, ...(fieldMeta ? { fieldMeta } : {}) });

test("a visitor signs through a template's direct link; the other signer signs; COMPLETED", async () => {
  const owner = newKey();
  const sdk = client(owner.key);
  const other = uniqueEmail("berta");
  const { id: tplId } = await sdk.envelopes.create({
    payload: {
      title: "Inscripción de socio", type: "TEMPLATE", meta: { language: "en" },
      recipients: [
        { email: "socio@template.invalid", name: "Socio", role: "SIGNER", fields: [
          box("SIGNATURE", 40), box("TEXT", 55, { type: "text", label: "Company", required: true })] },
        { email: other, name: "Berta Directora", role: "SIGNER", fields: [box("SIGNATURE", 75)] },
      ],
    },
    files: [{ fileName: "inscripcion.pdf", content: makePDF([{ texts: [{ x: 72, y: 760, text: "INSCRIPCION DE SOCIO" }] }]) }],
  });
  const tpl = await sdk.envelopes.get({ envelopeId: tplId });
  assert.equal(tpl.directLink, null);
  const templateId = Number(tpl.secondaryId.split("_")[1]);
  const direct = tpl.recipients.find((r) => r.name === "Socio");

  const link = await sdk.templates.directLink.create({ templateId, directRecipientId: direct.id });
  assert.equal(link.enabled, true);
  assert.equal(link.templateId, templateId);
  assert.equal(link.envelopeId, tplId);
  assert.equal(link.directTemplateRecipientId, direct.id);
  const read = await sdk.envelopes.get({ envelopeId: tplId });
  assert.deepEqual({ ...read.directLink }, { id: link.id, token: link.token, enabled: true, directTemplateRecipientId: direct.id });

  // Nobody is mailed before the visitor submits.
  assert.equal((await mailsTo(other)).length, 0);

  const page = await phone(browser);
  await page.goto(`${baseURL}/d/${link.token}?externalId=crm-42`);
  await page.getByRole("heading", { name: "Your details" }).waitFor();
  await page.waitForLoadState("networkidle");
  await shot(page, "direct-01-page");
  assert.deepEqual(await axe(page), [], "accessibility of the direct link page");
  assert.equal(await overflows(page), false, "the direct link page scrolls sideways at 390 px");
  assert.equal(await page.getByRole("button", { name: "Reject" }).count(), 0, "a visitor has nothing to reject");
  await page.getByLabel("Full name").fill("Vera Visitante");
  await page.getByLabel("Email").fill("vera.visitante@example.com");
  await page.getByLabel("Company").fill("Cooperativa Sur");
  await page.getByLabel("Company").press("Tab");
  await drawSignature(page);
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await page.getByRole("heading", { name: "Done" }).waitFor();
  await shot(page, "direct-02-signed");

  const found = await raw("GET", "/envelope?source=TEMPLATE_DIRECT_LINK&perPage=10", { key: owner.key });
  assert.equal(found.status, 200, found.text);
  assert.equal(found.json.data.length, 1);
  const id = found.json.data[0].id;
  const doc = await sdk.envelopes.get({ envelopeId: id });
  assert.equal(doc.type, "DOCUMENT");
  assert.equal(doc.source, "TEMPLATE_DIRECT_LINK");
  assert.equal(doc.externalId, "crm-42");
  assert.equal(doc.status, "PENDING");
  assert.equal(doc.directLink, null);
  const visitor = doc.recipients.find((r) => r.email === "vera.visitante@example.com");
  assert.equal(visitor.name, "Vera Visitante");
  assert.equal(visitor.signingStatus, "SIGNED");
  assert.equal(doc.fields.find((f) => f.type === "TEXT").customText, "Cooperativa Sur");
  const audit = await raw("GET", `/envelope/${id}/audit-log?perPage=100`, { key: owner.key });
  const created = audit.json.data.find((e) => e.type === "DOCUMENT_CREATED");
  assert.deepEqual(created.data.source, { type: "TEMPLATE_DIRECT_LINK", templateId, directRecipientEmail: "vera.visitante@example.com" });
  for (const type of ["DOCUMENT_OPENED", "DOCUMENT_FIELD_INSERTED", "DOCUMENT_RECIPIENT_COMPLETED"]) {
    assert.ok(audit.json.data.some((e) => e.type === type), `${type} in the audit log`);
  }
  await eventually(async () => (await mailsTo(owner.email)).find((m) => /through its direct link/.test(m.Subject)), { what: "the owner's mail" });

  // The other signer gets the document by mail, signs, and it completes.
  const otherPage = await phone(browser);
  await otherPage.goto(await linkFrom(other));
  await drawSignature(otherPage);
  await otherPage.getByRole("button", { name: "Sign", exact: true }).click();
  await otherPage.getByRole("heading", { name: "Done" }).waitFor();
  await eventually(async () => (await envelopeStatus(owner.key, id)).status === "COMPLETED", { what: "COMPLETED", timeout: 30000 });

  // Switched off: a page that says so, 410, and nothing of the template.
  const off = await sdk.templates.directLink.toggle({ templateId, enabled: false });
  assert.equal(off.enabled, false);
  const closed = await phone(browser);
  const res = await closed.goto(`${baseURL}/d/${link.token}`);
  assert.equal(res.status(), 410);
  await closed.getByRole("heading", { name: "This link is disabled" }).waitFor();
  assert.doesNotMatch(await closed.locator("main").textContent(), /Inscripción/);
  await shot(closed, "direct-03-disabled");
  const refused = await raw("POST", `/direct/${link.token}`, { body: { name: "X", email: "x@example.com", templateUpdatedAt: tpl.updatedAt, fields: [] } });
  assert.equal(refused.status, 410);

  // Removed: 404, and the template has no directLink.
  assert.deepEqual({ ...(await sdk.templates.directLink.delete({ templateId })) }, { success: true });
  assert.equal((await fetch(`${baseURL}/d/${link.token}`)).status, 404);
  assert.equal((await sdk.envelopes.get({ envelopeId: tplId })).directLink, null);
});

test("a direct link's page in Spanish: the browser asks for the visitor's email, a wrong RUT is told under its field", async () => {
  const owner = newKey();
  const form = new FormData();
  form.append("payload", JSON.stringify({
    title: "Solicitud", type: "TEMPLATE", meta: { language: "es" },
    recipients: [{ email: "visita@template.invalid", name: "Visita", role: "SIGNER", fields: [box("SIGNATURE", 40), box("RUT", 55)] }],
  }));
  form.append("files", new Blob([makePDF([{ texts: [{ x: 72, y: 760, text: "SOLICITUD" }] }])], { type: "application/pdf" }), "solicitud.pdf");
  const created = await raw("POST", "/envelope/create", { key: owner.key, body: form });
  assert.equal(created.status, 200, created.text);
  const tpl = (await raw("GET", `/envelope/${created.json.id}`, { key: owner.key })).json;
  const link = await raw("POST", "/template/direct/create", { key: owner.key,
    body: { templateId: Number(tpl.secondaryId.split("_")[1]), directRecipientId: tpl.recipients[0].id } });
  assert.equal(link.status, 200, link.text);
  const rut = tpl.fields.find((f) => f.type === "RUT").id;

  const page = await phone(browser, { locale: "es-CL" });
  let submits = 0;
  page.on("request", (req) => { if (req.method() === "POST" && req.url().includes("/direct/")) submits++; });
  await page.goto(`${baseURL}/d/${link.json.token}`);
  await page.locator("#visitor-name").fill("Vera Visitante");
  await page.getByRole("button", { name: "Firmar", exact: true }).click();
  // No email: the browser stops the submission.
  assert.equal(await page.locator("#visitor-email").evaluate((el) => el.matches(":invalid")), true);
  assert.equal(submits, 0);
  await page.locator("#visitor-email").fill("vera@example.com");
  // No signature yet: the page says so in Spanish, without the API's field ids.
  await page.getByRole("button", { name: "Firmar", exact: true }).click();
  await page.locator("#action-error").filter({ hasText: "Primero complete todos los campos obligatorios." }).waitFor();
  await page.locator(`#in-${rut}`).fill("12.345.678-9");
  await page.locator(`#in-${rut}`).press("Tab");
  await drawSignature(page);
  await page.getByRole("button", { name: "Firmar", exact: true }).click();
  await page.locator(`#err-${rut}`).filter({ hasText: "el dígito verificador no corresponde al número del RUT" }).waitFor();
  assert.doesNotMatch(await page.locator("#action-error").textContent(), /Input validation|fields\[/);
  await page.locator(`#in-${rut}`).fill("12.345.678-5");
  await page.locator(`#in-${rut}`).press("Tab");
  await page.getByRole("button", { name: "Firmar", exact: true }).click();
  await page.getByRole("heading", { name: "Listo" }).waitFor();
  await page.context().close();
});
