// The signing pages in a real browser: links read from the mails in the sink, opened in Debian's
// Chromium at phone width, filled, signed, approved or rejected by clicking real buttons.
// Every page is screenshotted into the artifacts folder and checked with axe-core.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { client, eventually, mailsTo, message, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { create, envelopeStatus, field, linkFrom, signDigest } from "./signers.mjs";
import { axe, drawSignature, launch, overflows, phone, shot } from "./browser.mjs";


let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function check(page, name) {
  await page.waitForLoadState("networkidle");
  await shot(page, name);
  assert.deepEqual(await axe(page), [], `accessibility of ${name}`);
  assert.equal(await overflows(page), false, `${name} scrolls sideways at 390 px`);
}

test("sequential: an approver approves, then a signer draws a signature and signs; COMPLETED", async () => {
  const { key } = newKey();
  const approver = uniqueEmail("approver"), signer = uniqueEmail("signer");
  const { id, tokens } = await create(key, {
    meta: { signingOrder: "SEQUENTIAL", language: "en" },
    recipients: [
      { email: approver, name: "Ana Approver", role: "APPROVER", signingOrder: 1 },
      { email: signer, name: "José Ñúñez", role: "SIGNER", signingOrder: 2,
        fields: [field("SIGNATURE", { positionY: 40 }), field("TEXT", { positionY: 55, fieldMeta: { type: "text", label: "Job title", required: true } }), field("DATE", { positionY: 70 })] },
    ],
  });
  // The signer's link before the approver has acted: a waiting page.
  const early = await phone(browser);
  await early.goto(`${process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080"}/sign/${tokens[signer]}`);
  await early.getByRole("heading", { name: "Not your turn yet" }).waitFor();
  assert.equal(await early.getByRole("button").count(), 0);
  await check(early, "00-signer-waiting");

  const page = await phone(browser);
  await page.goto(await linkFrom(approver));
  assert.equal(await page.getAttribute("html", "lang"), "en");
  await check(page, "01-approver-document");
  const cookies = await page.context().cookies();
  const ceremony = cookies.find((c) => c.name.startsWith("sobre_ceremony_"));
  assert.ok(ceremony && ceremony.httpOnly && ceremony.sameSite === "Lax", "the token was exchanged for an HttpOnly SameSite cookie");
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await page.getByRole("heading", { name: "Done" }).waitFor();
  assert.match(await page.locator("main").textContent(), /completed your part/);
  await check(page, "02-approver-done");

  const signerPage = await phone(browser);
  await signerPage.goto(await linkFrom(signer));
  await check(signerPage, "03-signer-document");
  await signerPage.getByLabel("Job title").fill("Gerente de operaciones");
  await signerPage.getByLabel("Job title").press("Tab");
  await drawSignature(signerPage);
  await shot(signerPage, "04-signer-drawn");
  await signerPage.getByRole("button", { name: "Sign", exact: true }).click();
  await signerPage.getByRole("heading", { name: "Done" }).waitFor();
  await check(signerPage, "05-signer-done");
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const env = await envelopeStatus(key, id);
  const sig = env.fields.find((f) => f.type === "SIGNATURE");
  assert.equal(sig.inserted, true);
  assert.equal(env.fields.find((f) => f.type === "TEXT").customText, "Gerente de operaciones");
});

test("a recipient rejects with a reason; the envelope is REJECTED", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("rechaza");
  const { id } = await create(key, {
    meta: { language: "es" },
    recipients: [{ email: signer, name: "Rosa Rechazo", role: "SIGNER", fields: [field("SIGNATURE")] }],
  });
  const page = await phone(browser, { locale: "es-CL" });
  await page.goto(await linkFrom(signer));
  assert.equal(await page.getAttribute("html", "lang"), "es");
  await page.getByRole("button", { name: "Firmar", exact: true }).waitFor();
  await page.getByRole("button", { name: "Rechazar", exact: true }).click();
  await page.locator("#reject-error").filter({ hasText: /reason/ }).waitFor();
  await page.getByLabel("Motivo del rechazo").fill("El monto no corresponde");
  await page.getByRole("button", { name: "Rechazar", exact: true }).click();
  await page.getByRole("heading", { name: "Este documento fue rechazado" }).waitFor();
  await check(page, "06-rejected");
  const env = await eventually(async () => { const e = await envelopeStatus(key, id); return e.status === "REJECTED" && e; }, { what: "REJECTED" });
  assert.equal(env.recipients[0].rejectionReason, "El monto no corresponde");
});

test("a wrong RUT is told under its field in the page's language, and a right one is saved", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("rut-malo");
  const { id } = await create(key, {
    meta: { language: "es" },
    recipients: [{ email: signer, name: "Raúl Rut", role: "SIGNER", fields: [field("SIGNATURE"), field("RUT", { positionY: 30 })] }],
  });
  const rut = (await envelopeStatus(key, id)).fields.find((f) => f.type === "RUT").id;
  const page = await phone(browser, { locale: "es-CL" });
  await page.goto(await linkFrom(signer));
  const input = page.locator(`#in-${rut}`);
  await input.fill("12.345.678-9");
  await input.press("Tab");
  await page.locator(`#err-${rut}`).filter({ hasText: "el dígito verificador no corresponde al número del RUT" }).waitFor();
  assert.doesNotMatch(await page.locator(`#err-${rut}`).textContent(), /Input validation|check digit/);
  await input.fill("12.345.678-5");
  await input.press("Tab");
  await page.locator(`[data-field="${rut}"].field-box.filled`).waitFor();
  assert.equal(await page.locator(`#err-${rut}`).textContent(), "");
  assert.equal((await envelopeStatus(key, id)).fields.find((f) => f.id === rut).customText, "12345678-5");
});

test("a completion the network loses says so, and the button can be pressed again", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("sin-red");
  const { id } = await create(key, {
    recipients: [{ email: signer, name: "Nora Red", role: "SIGNER", fields: [field("SIGNATURE")] }],
    meta: { typedSignatureEnabled: true },
  });
  const page = await phone(browser);
  await page.goto(await linkFrom(signer));
  await page.getByLabel("Type your name as your signature").fill("Nora Red");
  await page.getByLabel("Type your name as your signature").press("Tab");
  await page.route("**/complete", (route) => route.abort("internetdisconnected"));
  const sign = page.getByRole("button", { name: "Sign", exact: true });
  await sign.click();
  await page.locator("#action-error").filter({ hasText: /\S/ }).waitFor();
  await page.waitForFunction(() => !document.querySelector("#complete").disabled);
  await page.unroute("**/complete");
  await sign.click();
  await page.getByRole("heading", { name: "Done" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
});

test("TWO_FACTOR_AUTH: the code from the mail opens the document", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("dosfactores");
  const { id, tokens } = await create(key, {
    recipients: [{ email: signer, name: "Tomás Two", role: "SIGNER", accessAuth: ["TWO_FACTOR_AUTH"], fields: [field("SIGNATURE")] }],
    meta: { typedSignatureEnabled: true },
  });
  // The token alone no longer shows the document.
  const denied = await signing("GET", tokens[signer]);
  assert.equal(denied.status, 401);
  const page = await phone(browser);
  await page.goto(await linkFrom(signer));
  await check(page, "07-access-code");
  await page.getByRole("button", { name: "Send code" }).click();
  const mail = await eventually(async () => (await mailsTo(signer)).find((m) => /code/i.test(m.Subject)), { what: "the code mail" });
  const code = (await message(mail.ID)).Text.match(/\b(\d{6})\b/)[1];
  await page.getByLabel("Six-digit code").fill(code === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: "Verify code" }).click();
  await page.getByText("That code is not right").waitFor();
  await page.getByLabel("Six-digit code").fill(code);
  await page.getByRole("button", { name: "Verify code" }).click();
  await page.getByRole("button", { name: "Sign", exact: true }).waitFor();
  await check(page, "08-access-verified-document");
  await page.getByLabel("Type your name as your signature").fill("Tomás Two");
  await page.getByLabel("Type your name as your signature").press("Tab");
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await page.getByRole("heading", { name: "Done" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const audit = await raw("GET", `/envelope/${id}/audit-log?perPage=100`, { key });
  const types = audit.json.data.map((e) => e.type);
  for (const t of ["DOCUMENT_ACCESS_AUTH_2FA_REQUESTED", "DOCUMENT_ACCESS_AUTH_2FA_FAILED", "DOCUMENT_ACCESS_AUTH_2FA_VALIDATED"]) {
    assert.ok(types.includes(t), `${t} in the audit log`);
  }
});

test("CLAVE_UNICA with a RUT_FIRMADO field through the local provider; the RUN is in the audit log", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("claveunica");
  const { id, tokens } = await create(key, {
    meta: { language: "es" },
    recipients: [{ email: signer, name: "Persona de Prueba", role: "SIGNER", actionAuth: ["CLAVE_UNICA"],
      fields: [field("SIGNATURE"), field("RUT_FIRMADO", { positionY: 30 })] }],
  });
  // A RUT_FIRMADO value cannot be typed.
  const view = await signing("GET", tokens[signer]);
  const rutField = view.json.fields.find((f) => f.type === "RUT_FIRMADO");
  const typed = await signing("POST", tokens[signer], "/fields", { fieldId: rutField.id, value: "44.444.444-4" });
  assert.equal(typed.status, 400);
  assert.equal(typed.json.code, "RUT_FIRMADO_NOT_TYPEABLE");
  // Nor can the recipient sign before verifying.
  const early = await signing("POST", tokens[signer], "/complete");
  assert.equal(early.status, 401);

  const page = await phone(browser, { locale: "es-CL" });
  await page.goto(await linkFrom(signer));
  await check(page, "09-claveunica-document");
  await page.getByRole("button", { name: "Continuar con ClaveÚnica" }).click();
  await page.waitForURL(/127\.0\.0\.1:\d+\/openid\//);
  await shot(page, "10-claveunica-login");
  await page.getByRole("button", { name: /44\.444\.444-4/ }).click();
  await page.getByText("Verificado con ClaveÚnica").waitFor();
  await check(page, "11-claveunica-verified");
  assert.match(await page.locator(".field").filter({ hasText: "RUT" }).first().textContent(), /44444444-4/);
  await drawSignature(page);
  await page.getByRole("button", { name: "Firmar", exact: true }).click();
  await page.getByRole("heading", { name: "Listo" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const env = await envelopeStatus(key, id);
  assert.equal(env.fields.find((f) => f.type === "RUT_FIRMADO").customText, "44444444-4");
  // The methods Documenso does not name are listed as written when asked for.
  const audit = await raw("GET", `/envelope/${id}/audit-log?perPage=100&includeExtensions=true`, { key });
  const done = audit.json.data.find((e) => e.type === "DOCUMENT_RECIPIENT_COMPLETED");
  assert.deepEqual(done.data.actionAuth, ["CLAVE_UNICA"]);
  assert.equal(done.data.identity.claveUnica.run, "44444444-4");
  assert.ok(done.data.identity.claveUnica.name);
});

test("FAO_HASH: an advanced electronic signature over the digest, from the test CA; refusals leave the signer unsigned", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("fea");
  const { id, tokens } = await create(key, {
    recipients: [{ email: signer, name: "Fernanda FEA", role: "SIGNER", actionAuth: ["FAO_HASH"], fields: [field("SIGNATURE")] }],
    meta: { typedSignatureEnabled: true },
  });
  const tok = tokens[signer];
  const page = await phone(browser);
  await page.goto(await linkFrom(signer));
  await page.getByLabel("Type your name as your signature").fill("Fernanda FEA");
  await page.getByLabel("Type your name as your signature").press("Tab");
  await page.locator(".field-error#sig-error:empty").waitFor({ state: "attached" });
  const digest = await eventually(async () => {
    const r = await signing("GET", tok, "/fea");
    const shown = (await page.locator("#digest").textContent()).trim();
    return r.json.digest === shown && shown;
  }, { what: "the page to show the current digest" });
  assert.match(digest, /^[0-9a-f]{64}$/);
  await check(page, "12-fao-hash-document");

  // Refusals, each with a clear message, none of which lets the signer sign.
  const refusals = [
    ["another hash", signDigest("0".repeat(64))],
    ["an untrusted CA", signDigest(digest, "untrusted-holder")],
    ["an expired certificate", signDigest(digest, "holder-expired")],
  ];
  for (const [what, sig] of refusals) {
    const r = await signing("POST", tok, "/fea", { signature: sig });
    assert.equal(r.status, 400, `${what}: ${r.text}`);
    assert.equal(r.json.code, "VERIFICATION_FAILED", what);
    assert.ok(r.json.message.length > 20, what);
  }
  const early = await signing("POST", tok, "/complete");
  assert.equal(early.status, 401);

  await page.getByLabel("Or paste the signature (PEM or base64)").fill(signDigest(digest));
  await page.getByRole("button", { name: "Verify my certificate" }).click();
  await page.getByText("Advanced electronic signature verified").waitFor();
  await check(page, "13-fao-hash-verified");
  await page.getByRole("button", { name: "Sign", exact: true }).click();
  await page.getByRole("heading", { name: "Done" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const audit = await raw("GET", `/envelope/${id}/audit-log?perPage=100`, { key });
  const done = audit.json.data.find((e) => e.type === "DOCUMENT_RECIPIENT_COMPLETED");
  assert.equal(done.data.identity.certificate.rut, "44444444-4");
});

test("a token from another envelope reaches nothing of this one; a CC gets no signing page", async () => {
  const { key } = newKey();
  const a = uniqueEmail("a"), b = uniqueEmail("b"), cc = uniqueEmail("cc");
  const one = await create(key, { recipients: [{ email: a, name: "A", role: "SIGNER", fields: [field("SIGNATURE")] }, { email: cc, name: "Copia", role: "CC" }] });
  const two = await create(key, { recipients: [{ email: b, name: "B", role: "SIGNER", fields: [field("SIGNATURE")] }] });
  const viewA = await signing("GET", one.tokens[a]);
  const r = await signing("POST", two.tokens[b], "/fields", { fieldId: viewA.json.fields[0].id, value: "B" });
  assert.equal(r.status, 404);
  const item = await signing("GET", two.tokens[b], `/items/${viewA.json.envelope.envelopeItems[0].id}`);
  assert.equal(item.status, 404);
  const page = await phone(browser);
  const res = await page.goto(`${process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080"}/sign/${one.tokens[cc]}`);
  assert.equal(res.status(), 200);
  await page.getByRole("heading", { name: "Nothing to do" }).waitFor();
  assert.equal(await page.getByRole("button").count(), 0);
  await check(page, "14-cc");
  const bad = await page.goto(`${process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080"}/sign/not-a-real-token-at-all-0000`);
  assert.equal(bad.status(), 404);
  assert.equal(bad.headers()["referrer-policy"], "no-referrer");
});

test("FAO_HASH after Clave Única: a certificate of another person's RUT is refused", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("fea-cu");
  const { tokens } = await create(key, {
    recipients: [{ email: signer, name: "María Carmen", role: "SIGNER", actionAuth: ["CLAVE_UNICA", "FAO_HASH"], fields: [field("SIGNATURE")] }],
    meta: { typedSignatureEnabled: true, language: "es" },
  });
  const tok = tokens[signer];
  const page = await phone(browser, { locale: "es-CL" });
  await page.goto(await linkFrom(signer));
  await page.getByRole("button", { name: "Continuar con ClaveÚnica" }).click();
  await page.getByRole("button", { name: /44\.444\.444-4/ }).click();
  await page.getByText("Verificado con ClaveÚnica").waitFor();
  // API calls made with this browser's cookie carry its Clave Única proof.
  const api = page.context().request;
  const base = process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080";
  const { digest } = await (await api.get(`${base}/api/v2/signing/${tok}/fea`)).json();
  const other = await api.post(`${base}/api/v2/signing/${tok}/fea`, { data: { signature: signDigest(digest, "holder-55555555-5") } });
  assert.equal(other.status(), 400);
  assert.equal((await other.json()).code, "RUT_MISMATCH");
  const same = await api.post(`${base}/api/v2/signing/${tok}/fea`, { data: { signature: signDigest(digest) } });
  assert.equal(same.status(), 200, await same.text());
  assert.equal((await same.json()).rut, "44444444-4");
  // The same link without this browser's cookie has proved nothing.
  const bare = await signing("POST", tok, "/complete");
  assert.equal(bare.status, 401);
});

test("an expired link and a refused Clave Única answer have clear, accessible pages", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("vencido");
  const { id, tokens } = await create(key, {
    meta: { language: "es" },
    recipients: [{ email: signer, name: "Victor Vencido", role: "SIGNER", fields: [field("SIGNATURE")] }],
  });
  // The recipient's deadline passes (as the workflow's timer would see it months later).
  execFileSync(process.env.SOBRE_E2E_PSQL ?? "psql", [process.env.DATABASE_URL, "-qtAc",
    `UPDATE recipients SET expires_at = now() - interval '1 minute' WHERE envelope_id = '${id}'`]);
  const page = await phone(browser, { locale: "es-CL" });
  await page.goto(`${process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080"}/sign/${tokens[signer]}`);
  await page.getByRole("heading", { name: "Este enlace venció" }).waitFor();
  assert.equal(await page.getByRole("button").count(), 0);
  await check(page, "16-expired");
  const view = await signing("GET", tokens[signer]);
  assert.equal(view.json.expired, true);
  const fill = await signing("POST", tokens[signer], "/fields", { fieldId: view.json.fields[0].id, value: "Victor" });
  assert.equal(fill.status, 400);
  assert.equal(fill.json.code, "RECIPIENT_EXPIRED");

  const refused = await page.goto(`${process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080"}/auth/claveunica/callback?state=forged-state&code=forged-code`);
  assert.equal(refused.status(), 400);
  await page.getByText("No se firmó nada").waitFor();
  await check(page, "17-claveunica-refused");
});

test("keyboard only: a signer reaches every control with Tab, types a signature and signs with Enter", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("teclado");
  const { id } = await create(key, {
    meta: { typedSignatureEnabled: true },
    recipients: [{ email: signer, name: "Kim Keyboard", role: "SIGNER",
      fields: [field("SIGNATURE"), field("TEXT", { positionY: 30, fieldMeta: { type: "text", label: "City", required: true } })] }],
  });
  const page = await phone(browser);
  await page.goto(await linkFrom(signer));
  const focused = () => page.evaluate(() => {
    const el = document.activeElement;
    return { tag: el.tagName, id: el.id, label: el.labels?.[0]?.textContent?.trim() ?? "", text: el.textContent.trim() };
  });
  let signed = false;
  for (let i = 0; i < 40 && !signed; i++) {
    await page.keyboard.press("Tab");
    const f = await focused();
    if (f.label.startsWith("City")) {
      await page.keyboard.type("Valdivia");
    } else if (f.id === "typed") {
      await page.keyboard.type("Kim Keyboard");
    } else if (f.tag === "BUTTON" && f.text === "Sign") {
      await page.keyboard.press("Enter");
      signed = true;
    }
  }
  assert.ok(signed, "the Sign button is reachable with Tab");
  await page.getByRole("heading", { name: "Done" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const env = await envelopeStatus(key, id);
  assert.equal(env.fields.find((f) => f.type === "TEXT").customText, "Valdivia");
});
