// The embedded signing page (/embed/sign/{token}) in a real browser, framed by a parent page on
// another local origin, and Clave Única from it in a popup window: the parent (http://localhost:<port>) is not the same site as Sobre
// (http://127.0.0.1:<port>), so the frame works only with the partitioned ceremony cookie, and
// the parent hears of the ceremony through Documenso's embed events. A parent whose origin the
// team does not allow cannot frame it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { baseURL, eventually, mailsTo, message, newKey, raw, uniqueEmail } from "./helpers.mjs";
import { create, envelopeStatus, field } from "./signers.mjs";
import { launch, shot } from "./browser.mjs";

let browser, parent, port;
const sobreOrigin = new URL(baseURL).origin;

// The parent page frames the URL of its ?src= and keeps every message from Sobre's origin in
// window.received; window.frameLoaded turns true when the frame's load event fires.
const parentPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Parent</title></head><body>
<h1>Parent site</h1><iframe id="sobre" title="Signing" width="900" height="1400"></iframe>
<script>
window.received = []; window.frameLoaded = false;
window.addEventListener("message", (e) => { if (e.origin === ${JSON.stringify(sobreOrigin)}) window.received.push(e.data); });
const frame = document.getElementById("sobre");
frame.addEventListener("load", () => { window.frameLoaded = true; });
frame.src = new URLSearchParams(location.search).get("src");
</script></body></html>`;

before(async () => {
  browser = await launch();
  parent = createServer((req, res) => { res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }); res.end(parentPage); });
  await new Promise((resolve) => parent.listen(0, "127.0.0.1", resolve));
  port = parent.address().port;
});
after(async () => { await browser?.close(); parent?.close(); });

const allowedParent = () => `http://localhost:${port}`;
const otherParent = () => `http://127.0.0.1:${port}`; // same server, an origin the team does not allow

async function allow(key, origins) {
  const r = await raw("POST", "/team/embed-origins/update", { key, body: { origins } });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

async function received(page, action) {
  return eventually(async () => (await page.evaluate(() => window.received)).find((m) => m.action === action), { what: `the ${action} message` });
}

test("framed by an allowed origin: access code, fields and signature in the frame; ready, field-signed and completed reach the parent; COMPLETED", async () => {
  const { key } = newKey();
  assert.deepEqual((await allow(key, [allowedParent(), allowedParent() + "/"])).origins, [allowedParent()]);
  const signer = uniqueEmail("embebido");
  const { id, tokens } = await create(key, {
    meta: { language: "en", typedSignatureEnabled: true, drawSignatureEnabled: false, redirectUrl: "https://example.com/after" },
    recipients: [{ email: signer, name: "Elena Embed", role: "SIGNER", accessAuth: ["TWO_FACTOR_AUTH"],
      fields: [field("SIGNATURE", { positionY: 40 }), field("TEXT", { positionY: 55, fieldMeta: { type: "text", label: "Job title", required: true } })] }],
  });
  const embedURL = `${baseURL}/embed/sign/${tokens[signer]}`;
  const context = await browser.newContext({ viewport: { width: 1000, height: 1500 } });
  const page = await context.newPage();
  await page.goto(`${allowedParent()}/?src=${encodeURIComponent(embedURL)}`);
  const frame = page.frameLocator("#sobre");

  // The mailed code, asked for and typed in the frame: the session lives across the frame's
  // requests only through its cookie.
  await frame.getByRole("button", { name: "Send code" }).click();
  const mail = await eventually(async () => (await mailsTo(signer)).find((m) => /code/i.test(m.Subject)), { what: "the code mail" });
  const code = (await message(mail.ID)).Text.match(/\b(\d{6})\b/)[1];
  await frame.getByLabel("Six-digit code").fill(code);
  await frame.getByRole("button", { name: "Verify code" }).click();
  await frame.getByRole("button", { name: "Sign", exact: true }).waitFor();
  assert.equal((await received(page, "document-ready")).data, null);

  const cookies = await context.cookies(sobreOrigin);
  const ceremony = cookies.find((c) => c.name.startsWith("sobre_ceremony_"));
  assert.ok(ceremony && ceremony.httpOnly && ceremony.secure && ceremony.sameSite === "None", `the frame's ceremony cookie: ${JSON.stringify(cookies)}`);

  await frame.getByLabel("Job title").fill("Gerenta");
  await frame.getByLabel("Job title").press("Tab");
  const signed = await received(page, "field-signed");
  assert.equal(signed.data.value, "Gerenta");
  assert.equal(signed.data.isBase64, false);
  assert.equal(typeof signed.data.fieldId, "number");
  await frame.locator("#typed").fill("Elena Embed");
  await frame.locator("#typed").press("Tab");
  await eventually(async () => (await page.evaluate(() => window.received)).filter((m) => m.action === "field-signed").length >= 2, { what: "the signature's field-signed" });
  await frame.getByRole("button", { name: "Sign", exact: true }).click();
  const completed = await received(page, "document-completed");
  assert.equal(completed.data.envelopeId, id);
  assert.equal(completed.data.token, tokens[signer]);
  assert.equal(typeof completed.data.recipientId, "number");
  await frame.getByRole("heading", { name: "Done" }).waitFor();
  await shot(page, "embed-01-completed");
  // No navigation away: the redirectUrl is not followed, in the frame or the parent.
  assert.equal(page.url().startsWith(allowedParent()), true);
  assert.equal(page.frames().some((f) => f.url().startsWith(embedURL)), true);
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const env = await envelopeStatus(key, id);
  assert.equal(env.fields.find((f) => f.type === "TEXT").customText, "Gerenta");
  await context.close();
});

test("a parent whose origin is not allowed cannot frame the page, nor can anyone when the team allows none", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("noembebido");
  const { tokens } = await create(key, { recipients: [{ email: signer, name: "Nora", role: "SIGNER", fields: [field("SIGNATURE")] }] });
  const embedURL = `${baseURL}/embed/sign/${tokens[signer]}`;
  for (const [name, origins] of [["no origin allowed", []], ["another origin allowed", [allowedParent()]]]) {
    await allow(key, origins);
    const context = await browser.newContext();
    const page = await context.newPage();
    const refusals = [];
    page.on("console", (m) => { if (/frame-ancestors/.test(m.text())) refusals.push(m.text()); });
    await page.goto(`${otherParent()}/?src=${encodeURIComponent(embedURL)}`);
    await page.waitForFunction(() => window.frameLoaded);
    const framed = page.frames().find((f) => f !== page.mainFrame());
    assert.equal(await framed.locator("#complete").count(), 0, `${name}: the frame shows the page`);
    assert.deepEqual(await page.evaluate(() => window.received), [], `${name}: messages reached the parent`);
    await eventually(async () => refusals.length > 0, { what: `${name}: the browser's frame-ancestors refusal` });
    await context.close();
  }
  // Opened on its own, the page says why.
  await allow(key, []);
  const page = await (await browser.newContext()).newPage();
  const res = await page.goto(embedURL);
  assert.equal(res.status(), 403);
  await page.getByRole("heading", { name: "This page cannot be embedded" }).waitFor();
});

test("the team's embed origins: MANAGER or ADMIN only, every origin checked", async () => {
  const { key, team } = newKey();
  const member = newKey({ team, role: "MEMBER" });
  assert.equal((await raw("GET", "/team/embed-origins", { key: member.key })).status, 403);
  assert.equal((await raw("POST", "/team/embed-origins/update", { key: member.key, body: { origins: [] } })).status, 403);
  const bad = await raw("POST", "/team/embed-origins/update", { key, body: { origins: ["https://ok.example.com", "https://x.example.com/path", "ftp://y.example.com", "*"] } });
  assert.equal(bad.status, 400, bad.text);
  assert.deepEqual(bad.json.issues.map((i) => i.path).sort(), ["origins[1]", "origins[2]", "origins[3]"]);
  const read = await raw("GET", "/team/embed-origins", { key });
  assert.equal(read.status, 200);
  assert.deepEqual(read.json.origins, []);
});

test("Clave Única from the frame: a popup logs in and closes, the frame is verified and signs; the RUN is on the RUT_FIRMADO field", async () => {
  const { key } = newKey();
  await allow(key, [allowedParent()]);
  const signer = uniqueEmail("embedcu");
  const { id, tokens } = await create(key, {
    meta: { language: "en", typedSignatureEnabled: true, drawSignatureEnabled: false },
    recipients: [{ email: signer, name: "Persona de Prueba", role: "SIGNER", actionAuth: ["CLAVE_UNICA"],
      fields: [field("SIGNATURE", { positionY: 40 }), field("RUT_FIRMADO", { positionY: 30 })] }],
  });
  const embedURL = `${baseURL}/embed/sign/${tokens[signer]}`;
  const context = await browser.newContext({ viewport: { width: 1000, height: 1500 } });
  const page = await context.newPage();
  await page.goto(`${allowedParent()}/?src=${encodeURIComponent(embedURL)}`);
  const frame = page.frameLocator("#sobre");
  await received(page, "document-ready");
  const opened = context.waitForEvent("page");
  await frame.getByRole("button", { name: "Continue with ClaveÚnica" }).click();
  const popup = await opened;
  await popup.waitForURL(/127\.0\.0\.1:\d+\/openid\//);
  const closed = popup.waitForEvent("close");
  await popup.getByRole("button", { name: /44\.444\.444-4/ }).click();
  await closed;
  await frame.getByText("Verified with ClaveÚnica").waitFor();
  assert.equal(page.url().startsWith(allowedParent()), true);
  await frame.locator("#typed").fill("Persona de Prueba");
  await frame.locator("#typed").press("Tab");
  await eventually(async () => (await page.evaluate(() => window.received)).some((m) => m.action === "field-signed"), { what: "field-signed" });
  await frame.getByRole("button", { name: "Sign", exact: true }).click();
  assert.equal((await received(page, "document-completed")).data.envelopeId, id);
  await shot(page, "embed-02-claveunica-completed");
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  assert.equal((await envelopeStatus(key, id)).fields.find((f) => f.type === "RUT_FIRMADO").customText, "44444444-4");
  await context.close();
});

test("rejecting in the frame: document-rejected with the reason reaches the parent; REJECTED", async () => {
  const { key } = newKey();
  await allow(key, [allowedParent()]);
  const signer = uniqueEmail("embedrechaza");
  const { id, tokens } = await create(key, { meta: { language: "es" }, recipients: [{ email: signer, name: "Rosa", role: "SIGNER", fields: [field("SIGNATURE")] }] });
  const context = await browser.newContext({ viewport: { width: 1000, height: 1500 }, locale: "es-CL" });
  const page = await context.newPage();
  await page.goto(`${allowedParent()}/?src=${encodeURIComponent(`${baseURL}/embed/sign/${tokens[signer]}`)}`);
  const frame = page.frameLocator("#sobre");
  await received(page, "document-ready");
  await frame.getByLabel("Motivo del rechazo").fill("No corresponde");
  await frame.getByRole("button", { name: "Rechazar", exact: true }).click();
  const rejected = await received(page, "document-rejected");
  assert.deepEqual({ ...rejected.data, recipientId: undefined }, { token: tokens[signer], documentId: rejected.data.documentId, envelopeId: id, recipientId: undefined, reason: "No corresponde" });
  await frame.getByRole("heading", { name: "Este documento fue rechazado" }).waitFor();
  await eventually(async () => (await envelopeStatus(key, id)).status === "REJECTED", { what: "REJECTED" });
  await context.close();
});
