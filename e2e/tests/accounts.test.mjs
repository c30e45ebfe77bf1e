// Signer accounts in a real browser: an account created from a signing page (the verification
// link read from the mail sink, the password typed where it opens; a mail scanner's GET of it
// verifies nothing), each account method proved on the signing page (the password typed again,
// an authenticator code computed here as an app would, a passkey of Chromium's virtual
// authenticator), replayed codes and wrong passwords refused, an account lock, a second factor
// added only after a proof of the first (and mailed), and ACCOUNT access keeping the document
// from every browser but the recipient's.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { baseURL, eventually, mailsTo, message, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { create, envelopeStatus, field, linkFrom } from "./signers.mjs";
import { axe, launch, overflows, phone, shot } from "./browser.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// WebAuthn takes no IP address as its relying party: the server on 127.0.0.1 is localhost to it.
const localURL = baseURL.replace("127.0.0.1", "localhost");
const onLocalhost = (url) => url.replace(baseURL, localURL);
const PASSWORD = "Cerro-Alegre-1987 valparaíso";

// signingLink is the signing link mailed to address, whatever account mails it got too.
const signingLink = (address) => linkFrom(address, /^(Please|Por favor) /);

const text = {
  en: {
    createAccount: "Create account", signUpHeading: "Create your account", email: "Email address",
    password: "Password", password2: "Password again", checkEmail: "Check your email", signIn: "Sign in",
    verifyHeading: "Confirm your email address", verifySubmit: "Confirm and sign in",
    account: "Your account", typed: "Type your name as your signature",
    sign: "Sign", done: "Done", signedInAs: "Signed in as", proved: "✓ Verified",
  },
  es: {
    createAccount: "Crear cuenta", signUpHeading: "Cree su cuenta", email: "Correo electrónico",
    password: "Contraseña", password2: "Repita la contraseña", checkEmail: "Revise su correo", signIn: "Iniciar sesión",
    verifyHeading: "Confirme su correo", verifySubmit: "Confirmar e iniciar sesión",
    account: "Su cuenta", typed: "Escriba su nombre como firma",
    sign: "Firmar", done: "Listo", signedInAs: "Sesión iniciada como", proved: "✓ Verificado",
  },
};

// check screenshots the page and requires it to have no serious accessibility violation and
// no sideways scrolling at phone width.
async function check(page, name) {
  await page.waitForLoadState("networkidle");
  await shot(page, name);
  assert.deepEqual(await axe(page), [], `accessibility of ${name}`);
  assert.equal(await overflows(page), false, `${name} scrolls sideways at 390 px`);
}

// verifyLink waits for the account verification mail to address and returns its link.
async function verifyLink(address) {
  return eventually(async () => {
    for (const m of (await mailsTo(address)).reverse()) {
      const found = (await message(m.ID)).Text.match(/https?:\/\/\S+\/account\/verify\/[A-Za-z0-9_-]+/);
      if (found) return found[0];
    }
    return false;
  }, { what: `the verification mail to ${address}` });
}

// scannerOpens opens link as a mail scanner does (a GET from a fresh context, no cookie) and
// checks that the account of email and password is still unverified: a sign-in is refused with
// EMAIL_NOT_VERIFIED's page.
async function scannerOpens(link, email, password = PASSWORD) {
  const scanner = await browser.newContext();
  const seen = await scanner.request.get(link);
  assert.equal(seen.status(), 200, "the verification link opens a page");
  assert.match(await seen.text(), /id="verify-password"/, "the page asks for the password");
  const signIn = await scanner.request.post(`${baseURL}/account/signin`, { form: { email, password } });
  assert.equal(signIn.status(), 401, "signing in after a scanner opened the link");
  assert.match(await signIn.text(), /id="signin-resend-link"/, "the account is still unverified");
  await scanner.close();
}

// signUpFromPage follows the "Create account" link of the signing page open in page, creates
// the account of email (prefilled), opens the mailed link, types the password there and lands
// back on the signing page signed in. With checks, every account page is screenshotted and
// checked; with scan, a mail scanner opens the link first. It returns the verification link.
async function signUpFromPage(page, email, { lang = "en", checks = "", host = baseURL, scan = false } = {}) {
  const t = text[lang];
  const signingURL = page.url();
  await page.getByRole("link", { name: t.createAccount }).click();
  await page.getByRole("heading", { name: t.signUpHeading }).waitFor();
  assert.equal(await page.getByLabel(t.email).inputValue(), email, "the sign-up form has the recipient's email");
  if (checks) await check(page, `${checks}-signup`);
  await page.getByLabel(t.password, { exact: true }).fill(PASSWORD);
  await page.getByLabel(t.password2).fill(PASSWORD);
  await page.getByRole("button", { name: t.createAccount }).click();
  await page.getByRole("heading", { name: t.checkEmail }).waitFor();
  if (checks) await shot(page, `${checks}-check-email`);
  const link = await verifyLink(email);
  assert.ok(link.startsWith(`${baseURL}/account/verify/`), `verification link ${link} on SOBRE_PUBLIC_URL`);
  if (scan) await scannerOpens(link, email);
  await page.goto(link.replace(baseURL, host));
  await page.getByRole("heading", { name: t.verifyHeading }).waitFor();
  assert.equal((await page.locator("#verify-email").textContent()).trim(), email, "the page shows the address");
  if (checks) await check(page, `${checks}-verify`);
  await page.getByLabel(t.password, { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: t.verifySubmit }).click();
  await page.waitForURL(signingURL);
  return link;
}

// quickAccount makes and verifies the account of email in context (its request API shares the
// context's cookies), without the pages: the password typed at the mailed link signs it in.
async function quickAccount(context, email, { host = baseURL, password = PASSWORD } = {}) {
  const api = context.request;
  const up = await api.post(`${host}/account/signup`, { form: { email, password, password2: password } });
  assert.equal(up.status(), 200, await up.text());
  const link = (await verifyLink(email)).replace(baseURL, host);
  const opened = await api.get(link);
  assert.equal(opened.status(), 200);
  assert.match(await opened.text(), /id="verify-password"/);
  const verified = await api.post(link, { form: { password } });
  assert.equal(verified.status(), 200, await verified.text());
  assert.match(new URL(verified.url()).pathname, /^\/account$/, "verifying leads to the account page, signed in");
}

// signTyped types a signature on the signing page, signs and waits for the done page.
async function signTyped(page, name, lang = "en") {
  const t = text[lang];
  await page.getByLabel(t.typed).fill(name);
  await page.getByLabel(t.typed).press("Tab");
  await page.locator("#complete:enabled").waitFor();
  await page.getByRole("button", { name: t.sign, exact: true }).click();
  await page.getByRole("heading", { name: t.done }).waitFor();
}

// completedProofs waits for the envelope to be COMPLETED and returns the proofs of its
// recipient's DOCUMENT_RECIPIENT_COMPLETED audit entry, and the whole audit log.
async function completedProofs(key, id) {
  await eventually(async () => (await envelopeStatus(key, id)).status === "COMPLETED", { what: "COMPLETED" });
  const audit = await raw("GET", `/envelope/${id}/audit-log?perPage=100&includeExtensions=true`, { key });
  assert.equal(audit.status, 200, audit.text);
  const done = audit.json.data.find((e) => e.type === "DOCUMENT_RECIPIENT_COMPLETED");
  assert.ok(done, "a DOCUMENT_RECIPIENT_COMPLETED entry");
  assert.ok(Array.isArray(done.data.proofs), `proofs in ${JSON.stringify(done.data)}`);
  return { proofs: done.data.proofs, audit: audit.json.data };
}

function proofOf(proofs, method) {
  const p = proofs.find((x) => x.method === method);
  assert.ok(p, `a ${method} proof in ${JSON.stringify(proofs)}`);
  return p;
}

// A signing envelope of one recipient with a typed signature.
async function envelopeFor(key, email, auth, { language = "en", title = "Contrato de arriendo" } = {}) {
  return create(key, {
    title, meta: { typedSignatureEnabled: true, language },
    recipients: [{ email, name: "Firmante de Prueba", role: "SIGNER", ...auth, fields: [field("SIGNATURE")] }],
  });
}

// The authenticator app: RFC 6238 codes (HMAC-SHA1, 30 s steps, 6 digits) of a base32 secret.
function base32(secret) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0, value = 0;
  const out = [];
  for (const c of secret.replace(/[\s=]/g, "").toUpperCase()) {
    const i = alphabet.indexOf(c);
    assert.ok(i >= 0, `base32 secret ${secret}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >>> bits) & 0xff);
      value &= (1 << bits) - 1;
    }
  }
  return Buffer.from(out);
}
const stepNow = () => Math.floor(Date.now() / 30000);
function totp(secret, step) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const h = createHmac("sha1", base32(secret)).update(counter).digest();
  const offset = h[h.length - 1] & 0x0f;
  return String((h.readUInt32BE(offset) & 0x7fffffff) % 1e6).padStart(6, "0");
}

// enrolTOTP sets up the authenticator app on the account page open in page (signed in): reads
// the typed secret, confirms with a code, and returns the secret, the step of the code used and
// the recovery codes shown once.
async function enrolTOTP(page, { checks = "" } = {}) {
  await page.getByRole("button", { name: "Set up an authenticator app" }).click();
  await page.getByRole("heading", { name: "Set up your authenticator app" }).waitFor();
  assert.equal(await page.locator("#totp-qr").evaluate((img) => img.complete && img.naturalWidth > 0), true, "the QR code shows");
  const secret = (await page.locator("#totp-secret").textContent()).replace(/\s+/g, "");
  assert.match(secret, /^[A-Z2-7]{16,}$/);
  if (checks) await check(page, `${checks}-totp-setup`);
  const step = stepNow();
  await page.getByLabel("Six-digit code").fill(totp(secret, step));
  await page.getByRole("button", { name: "Turn on" }).click();
  await page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
  const recovery = (await page.locator("#recovery-codes code").allTextContents()).map((s) => s.trim());
  assert.equal(recovery.length, 10);
  assert.equal(new Set(recovery).size, 10);
  if (checks) await check(page, `${checks}-recovery-codes`);
  await page.getByRole("link", { name: "Done" }).click();
  await page.locator("#totp-status").filter({ hasText: "On" }).waitFor();
  return { secret, step, recovery };
}

// A fresh code: the next step after the last one used (one step ahead is accepted), else now.
const freshStep = (last) => Math.max(last + 1, stepNow());

test("an account made from the signing page: sign-up, the mailed link and the password (a scanner's GET verifies nothing), back to sign signed in; English and Spanish", async () => {
  const { key } = newKey();
  // ACTION auth ACCOUNT, in English.
  const signer = uniqueEmail("cuenta-firma");
  const { id, tokens } = await envelopeFor(key, signer, { actionAuth: ["ACCOUNT"] }, { title: "Contrato de servicios" });
  const page = await phone(browser);
  await page.goto(await signingLink(signer));
  await page.getByText(`Sign in to the Sobre account of ${signer}`).waitFor();
  assert.equal(await page.getByRole("button", { name: "Sign", exact: true }).isDisabled(), true, "Sign waits for the account");
  const early = await signing("POST", tokens[signer], "/complete");
  assert.equal(early.status, 401, "completing without the account");
  await check(page, "acc-01-signing-signed-out");
  const verification = await signUpFromPage(page, signer, { checks: "acc-02", scan: true });
  await page.locator("#account-signed-in").filter({ hasText: `Signed in as ${signer}` }).waitFor();
  assert.equal(await page.locator("#proved-account").textContent(), text.en.proved);
  await check(page, "acc-03-signing-signed-in");
  await signTyped(page, "Firmante de Prueba");
  await check(page, "acc-04-done");
  const { proofs } = await completedProofs(key, id);
  const p = proofOf(proofs, "ACCOUNT");
  assert.equal(p.accountEmail, signer);
  assert.ok(p.accountId, "the account's id");
  // The account page lists the envelope it was asked to sign.
  await page.goto(`${baseURL}/account`);
  await page.getByRole("heading", { name: "Your account" }).waitFor();
  assert.equal((await page.locator("#account-email").textContent()).trim(), signer);
  await page.locator("#asked-envelopes").getByRole("link", { name: "Contrato de servicios" }).waitFor();
  assert.match(await page.locator("#asked-envelopes").textContent(), /Completed/);
  await check(page, "acc-05-account");
  // The verification link works once.
  assert.equal((await page.goto(verification)).status(), 404);
  await page.getByRole("heading", { name: "This link does not work" }).waitFor();
  await page.context().close();

  // ACCESS auth ACCOUNT, in Spanish: the document stays closed until the account is signed in.
  const firmante = uniqueEmail("cuenta-acceso");
  const env = await envelopeFor(key, firmante, { accessAuth: ["ACCOUNT"] }, { language: "es" });
  const es = await phone(browser, { locale: "es-CL" });
  const res = await es.goto(await signingLink(firmante));
  assert.equal(res.status(), 401);
  await es.getByRole("heading", { name: "Inicie sesión para abrir este documento" }).waitFor();
  assert.equal(await es.locator("img[src*='/pages/']").count(), 0, "no page of the document shows");
  assert.ok(!(await es.textContent("body")).includes("CONTRATO DE ARRIENDO"));
  await check(es, "acc-06-access-signed-out-es");
  await signUpFromPage(es, firmante, { lang: "es", checks: "acc-07-es" });
  await es.getByRole("button", { name: "Firmar", exact: true }).waitFor();
  await check(es, "acc-08-signing-es");
  await signTyped(es, "Firmante de Prueba", "es");
  const second = await completedProofs(key, env.id);
  assert.equal(proofOf(second.proofs, "ACCOUNT").accountEmail, firmante);
  await es.goto(`${baseURL}/account`);
  await es.getByRole("heading", { name: "Su cuenta" }).waitFor();
  await check(es, "acc-09-account-es");
  await es.context().close();
});

test("PASSWORD: the account's password typed again on the signing page completes; the proof is recorded", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("clave");
  const { id } = await envelopeFor(key, signer, { actionAuth: ["PASSWORD"] });
  const page = await phone(browser);
  await page.goto(await signingLink(signer));
  await signUpFromPage(page, signer);
  // Signed in is not enough: the password is asked again.
  assert.equal(await page.getByRole("button", { name: "Sign", exact: true }).isDisabled(), true);
  await page.getByLabel("Account password").fill(PASSWORD);
  await page.getByRole("button", { name: "Verify" }).click();
  await page.locator("#proved-password").filter({ hasText: "Verified" }).waitFor();
  await check(page, "acc-10-password-proved");
  await signTyped(page, "Firmante de Prueba");
  const { proofs } = await completedProofs(key, id);
  const p = proofOf(proofs, "PASSWORD");
  assert.equal(p.accountEmail, signer);
  assert.ok(Date.now() - Date.parse(p.at) < 5 * 60_000, `the password's time ${p.at}`);
  await page.context().close();
});

test("TWO_FACTOR_AUTH: an authenticator app set up on the account page, a fresh code on the signing page", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("autenticador");
  const { id } = await envelopeFor(key, signer, { actionAuth: ["TWO_FACTOR_AUTH"] });
  const page = await phone(browser);
  const link = await signingLink(signer);
  await page.goto(link);
  await signUpFromPage(page, signer);
  // Without an app, the page leads to setting one up, and back.
  await page.getByRole("link", { name: "Set up an authenticator app in your account" }).click();
  await page.getByRole("heading", { name: "Your account" }).waitFor();
  const { secret, step } = await enrolTOTP(page, { checks: "acc-11" });
  await page.getByRole("link", { name: "Back to the document" }).click();
  await page.waitForURL(link);
  await page.getByLabel("Authenticator code").fill(totp(secret, freshStep(step)));
  await page.getByRole("button", { name: "Verify" }).click();
  await page.locator("#proved-totp").filter({ hasText: "Verified" }).waitFor();
  await check(page, "acc-12-totp-proved");
  await signTyped(page, "Firmante de Prueba");
  const { proofs } = await completedProofs(key, id);
  assert.equal(proofOf(proofs, "TWO_FACTOR_AUTH").accountEmail, signer);
  await page.context().close();
});

test("TWO_FACTOR_AUTH: a code is taken once, and so is a recovery code", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("repeticion");
  const { tokens } = await envelopeFor(key, signer, { actionAuth: ["TWO_FACTOR_AUTH"] });
  const tok = tokens[signer];
  const page = await phone(browser);
  await quickAccount(page.context(), signer);
  await page.goto(`${baseURL}/account`);
  const { secret, step, recovery } = await enrolTOTP(page);
  await page.goto(await signingLink(signer));
  const api = page.context().request;
  const prove = (code) => api.post(`${baseURL}/api/v2/signing/${tok}/auth/totp`, { data: { code } });
  const code = totp(secret, freshStep(step));
  const first = await prove(code);
  assert.equal(first.status(), 200, await first.text());
  assert.deepEqual(await first.json(), { verified: true, method: "TWO_FACTOR_AUTH" });
  const replay = await prove(code);
  assert.equal(replay.status(), 401, "the same code again");
  assert.equal((await replay.json()).code, "AUTHENTICATION_FAILED");
  // The code of the confirmation, older still, is refused too.
  const older = await prove(totp(secret, step));
  assert.equal(older.status(), 401, "a code older than the last one taken");
  // A recovery code works once.
  const rec1 = await prove(recovery[3]);
  assert.equal(rec1.status(), 200, await rec1.text());
  const rec2 = await prove(recovery[3]);
  assert.equal(rec2.status(), 401, "the same recovery code again");
  assert.equal((await rec2.json()).code, "AUTHENTICATION_FAILED");
  await page.goto(`${baseURL}/account`);
  await page.getByText("9 recovery codes left.").waitFor();
  await page.context().close();
});

test("PASSKEY: a passkey of the virtual authenticator registered on the account page proves the signer", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("llave");
  const { id, tokens } = await envelopeFor(key, signer, { actionAuth: ["PASSKEY"] });
  const page = await phone(browser);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  const link = onLocalhost(await signingLink(signer));
  assert.ok(link.startsWith(`${localURL}/sign/`));
  await page.goto(link);
  await signUpFromPage(page, signer, { host: localURL });
  await page.getByRole("link", { name: "Add a passkey to your account" }).click();
  await page.getByRole("heading", { name: "Your account" }).waitFor();
  await page.getByLabel("Name of the new passkey").fill("Teléfono de prueba");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await page.getByText("The passkey was added.").waitFor();
  await page.locator("#passkey-list").getByText("Teléfono de prueba").waitFor();
  await check(page, "acc-13-passkey-added");
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  assert.equal(credentials.length, 1);
  const credentialId = Buffer.from(credentials[0].credentialId, "base64").toString("base64url");
  await page.getByRole("link", { name: "Back to the document" }).click();
  await page.waitForURL(link);
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await page.locator("#proved-passkey").filter({ hasText: "Verified" }).waitFor();
  await check(page, "acc-14-passkey-proved");
  const view = await page.context().request.get(`${localURL}/api/v2/signing/${tokens[signer]}`);
  assert.equal((await view.json()).verification.accountProofs.passkey, true);
  await signTyped(page, "Firmante de Prueba");
  const { proofs } = await completedProofs(key, id);
  const p = proofOf(proofs, "PASSKEY");
  assert.equal(p.accountEmail, signer);
  assert.equal(p.credentialId, credentialId);
  await page.context().close();
});

test("a second factor: a passkey is added to an account with an authenticator app only after a code confirms it; each change is mailed", async () => {
  const signer = uniqueEmail("segundo-factor");
  const page = await phone(browser);
  await quickAccount(page.context(), signer, { host: localURL });
  await page.goto(`${localURL}/account`);
  await page.getByRole("heading", { name: "Your account" }).waitFor();
  // The first factor needs only the signed-in session.
  assert.equal(await page.locator("#factor").count(), 0, "no confirmation before the account has a factor");
  const { secret, step } = await enrolTOTP(page);
  // Now the password alone adds nothing: the page asks for a code first.
  await page.locator("#factor").waitFor();
  assert.equal(await page.locator("#passkey-add").isDisabled(), true, "Add a passkey waits for the confirmation");
  assert.equal(await page.locator("#factor-passkey").count(), 0, "no passkey to confirm with yet");
  const refused = await page.context().request.post(`${localURL}/account/passkeys/options`);
  assert.equal(refused.status(), 401);
  assert.equal((await refused.json()).code, "FACTOR_CONFIRMATION_REQUIRED");
  await check(page, "acc-18-factor-confirm");
  await page.getByLabel("Code or recovery code").first().fill("000000");
  await page.locator("#factor-confirm").click();
  await page.locator("#err-factor-code").waitFor();
  await page.locator("#factor-code").fill(totp(secret, freshStep(step)));
  await page.locator("#factor-confirm").click();
  await page.getByText("Confirmed. For 5 minutes you may add or remove").waitFor();
  await page.locator("#factor-status").waitFor();
  assert.equal(await page.locator("#passkey-add").isDisabled(), false);
  await check(page, "acc-19-factor-confirmed");
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  await page.getByLabel("Name of the new passkey").fill("Llave de prueba");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await page.getByText("The passkey was added.").waitFor();
  // Both changes were mailed to the account's address, with where they came from.
  const notices = await eventually(async () => {
    const subjects = (await mailsTo(signer)).map((m) => m.Subject);
    return subjects.includes("An authenticator app was added to your Sobre account") &&
      subjects.includes("A passkey was added to your Sobre account") && subjects;
  }, { what: "the notices of the factors added" });
  assert.ok(notices, "notices mailed");
  const added = (await mailsTo(signer)).find((m) => m.Subject === "A passkey was added to your Sobre account");
  const body = (await message(added.ID)).Text;
  assert.match(body, /Llave de prueba/);
  assert.match(body, /If this wasn't you, reset your password/);
  assert.match(body, /\/account\/reset\?email=/);
  // Another browser with the password alone removes nothing.
  const other = await browser.newContext();
  const signIn = await other.request.post(`${localURL}/account/signin`, { form: { email: signer, password: PASSWORD } });
  assert.equal(signIn.status(), 200);
  const otherPage = await other.newPage();
  await otherPage.goto(`${localURL}/account`);
  assert.equal(await otherPage.locator(".passkey-delete").isDisabled(), true, "Remove waits for the confirmation");
  const passkeyId = await otherPage.locator("#passkey-list li").getAttribute("data-passkey-id");
  const removeRefused = await other.request.post(`${localURL}/account/passkeys/${passkeyId}/delete`, { form: {} });
  assert.equal(removeRefused.status(), 401);
  await other.close();
  // This browser signs in again (a new session, no proof): the passkey confirms, then goes.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Email address").fill(signer);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Your account" }).waitFor();
  assert.equal(await page.locator(".passkey-delete").isDisabled(), true);
  await page.locator("#factor-passkey").click();
  await page.getByText("Confirmed. For 5 minutes you may add or remove").waitFor();
  await page.locator(".passkey-delete").click();
  await page.getByText("The passkey was removed.").waitFor();
  await eventually(async () => (await mailsTo(signer)).some((m) => m.Subject === "A passkey was removed from your Sobre account"),
    { what: "the notice of the passkey removed" });
  await page.context().close();
});

test("five wrong passwords are refused and logged, then the right one completes; ten lock the account", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("cinco");
  const { id } = await envelopeFor(key, signer, { actionAuth: ["PASSWORD"] });
  const page = await phone(browser);
  await quickAccount(page.context(), signer);
  await page.goto(await signingLink(signer));
  const attempt = async (password) => {
    await page.getByLabel("Account password").fill(password);
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/auth/password")),
      page.getByRole("button", { name: "Verify" }).click(),
    ]);
    return { status: res.status(), body: await res.json() };
  };
  for (let i = 1; i <= 5; i++) {
    const r = await attempt(`not the password ${i}`);
    assert.equal(r.status, 401, `wrong password ${i}`);
    assert.equal(r.body.code, "AUTHENTICATION_FAILED");
    await page.locator("#auth-message").filter({ hasText: "That is not right. Try again." }).waitFor();
  }
  await check(page, "acc-15-wrong-password");
  const right = await attempt(PASSWORD);
  assert.equal(right.status, 200);
  await page.locator("#proved-password").filter({ hasText: "Verified" }).waitFor();
  await signTyped(page, "Firmante de Prueba");
  const { proofs, audit } = await completedProofs(key, id);
  proofOf(proofs, "PASSWORD");
  const failed = audit.filter((e) => e.type === "DOCUMENT_RECIPIENT_AUTH_FAILED");
  assert.equal(failed.length, 5);
  for (const e of failed) assert.equal(e.data.method, "PASSWORD");
  await page.context().close();

  // Another account: ten wrong passwords in a row lock it; the right one is refused while locked.
  const locked = uniqueEmail("bloqueo");
  const env = await envelopeFor(key, locked, { actionAuth: ["PASSWORD"] });
  const lp = await phone(browser);
  await quickAccount(lp.context(), locked);
  await lp.goto(await signingLink(locked));
  const api = lp.context().request;
  const prove = (password) => api.post(`${baseURL}/api/v2/signing/${env.tokens[locked]}/auth/password`, { data: { password } });
  for (let i = 1; i <= 9; i++) {
    const r = await prove(`wrong ${i}`);
    assert.equal(r.status(), 401, `wrong password ${i}`);
  }
  const tenth = await prove("wrong 10");
  assert.equal(tenth.status(), 429, "the tenth wrong password locks the account");
  assert.equal((await tenth.json()).code, "ACCOUNT_LOCKED");
  assert.ok(Number(tenth.headers()["retry-after"]) > 0, "Retry-After with the lock");
  const rightWhileLocked = await prove(PASSWORD);
  assert.equal(rightWhileLocked.status(), 429, "the right password while locked");
  assert.equal((await rightWhileLocked.json()).code, "ACCOUNT_LOCKED");
  const wait = Number(rightWhileLocked.headers()["retry-after"]);
  assert.ok(wait > 0 && wait <= 15 * 60, `Retry-After ${wait}`);
  // The page says so.
  await lp.getByLabel("Account password").fill(PASSWORD);
  await lp.getByRole("button", { name: "Verify" }).click();
  await lp.locator("#auth-message").filter({ hasText: /locked for 1[45] minutes/ }).waitFor();
  await shot(lp, "acc-16-locked");
  const still = await envelopeStatus(key, env.id);
  assert.equal(still.recipients[0].signingStatus, "NOT_SIGNED");
  // Signing in is refused too.
  const other = await browser.newContext();
  const signIn = await other.request.post(`${baseURL}/account/signin`, { form: { email: locked, password: PASSWORD } });
  assert.equal(signIn.status(), 429);
  assert.match(await signIn.text(), /locked for 1[45] minutes/);
  await other.close();
  await lp.context().close();
});

test("ACCOUNT access: the document, its PDF and page images only for the recipient's signed-in account", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("acceso"), intruder = uniqueEmail("otra-cuenta");
  const { id, tokens } = await envelopeFor(key, signer, { accessAuth: ["ACCOUNT"] });
  const tok = tokens[signer];
  const owner = await raw("GET", `/envelope/${id}`, { key });
  const itemId = owner.json.envelopeItems[0].id;
  const link = await signingLink(signer);
  const paths = {
    json: `${baseURL}/api/v2/signing/${tok}`,
    pdf: `${baseURL}/api/v2/signing/${tok}/items/${itemId}`,
    image: `${baseURL}/sign/${tok}/pages/${itemId}/1`,
  };
  // See what a browser (its cookies) gets from every route of the link: the JSON routes give the
  // refusal's code in their body, the page image at the start of its plain text.
  const expectRefused = async (context, code) => {
    for (const [what, url] of Object.entries(paths)) {
      const r = await context.request.get(url);
      assert.equal(r.status(), 401, `${what} for ${code}`);
      if (what === "image") assert.ok((await r.text()).startsWith(`${code}:`), `${what}`);
      else assert.equal((await r.json()).code, code, `${what}`);
    }
  };
  // No cookie at all.
  const bare = await signing("GET", tok);
  assert.equal(bare.status, 401);
  assert.equal(bare.json.code, "ACCOUNT_REQUIRED");
  assert.ok(!bare.text.includes("Contrato"), "the refusal shows the title");
  // A browser that opened the link but is signed in to no account.
  const anon = await phone(browser);
  await anon.goto(link);
  await anon.getByRole("heading", { name: "Sign in to open this document" }).waitFor();
  await expectRefused(anon.context(), "ACCOUNT_REQUIRED");
  await anon.context().close();
  // A browser signed in to another address's account.
  const other = await phone(browser);
  await quickAccount(other.context(), intruder);
  const res = await other.goto(link);
  assert.equal(res.status(), 401);
  await other.getByText(`signed in to the account of ${intruder}, but this document is for ${signer}`).waitFor();
  await check(other, "acc-17-access-mismatch");
  await expectRefused(other.context(), "ACCOUNT_MISMATCH");
  // Signing out from that page leads back to it, signed out.
  await other.getByRole("button", { name: "Sign out" }).click();
  await other.waitForURL(link);
  await other.getByRole("link", { name: "Sign in" }).waitFor();
  await expectRefused(other.context(), "ACCOUNT_REQUIRED");
  await other.context().close();
  // The recipient's account.
  const right = await phone(browser);
  await quickAccount(right.context(), signer);
  assert.equal((await right.goto(link)).status(), 200);
  const view = await right.context().request.get(paths.json);
  assert.equal(view.status(), 200);
  const v = (await view.json()).verification;
  assert.equal(v.accountRequired, true);
  assert.equal(v.accountMatches, true);
  assert.equal(v.account.email, signer);
  const pdf = await right.context().request.get(paths.pdf);
  assert.equal(pdf.status(), 200);
  assert.equal((await pdf.body()).subarray(0, 5).toString(), "%PDF-");
  const image = await right.context().request.get(paths.image);
  assert.equal(image.status(), 200);
  assert.equal(image.headers()["content-type"], "image/png");
  await right.context().close();
});

test("several action methods mean any one: PASSKEY or PASSWORD completes with the password alone", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("cualquiera");
  const { id } = await envelopeFor(key, signer, { actionAuth: ["PASSKEY", "PASSWORD"] });
  const page = await phone(browser);
  await quickAccount(page.context(), signer);
  await page.goto(await signingLink(signer));
  await page.getByText("Any one of these methods is enough.").waitFor();
  await page.getByRole("link", { name: "Add a passkey to your account" }).waitFor();
  await page.getByLabel("Account password").fill(PASSWORD);
  await page.getByRole("button", { name: "Verify" }).click();
  await page.locator("#proved-password").filter({ hasText: "Verified" }).waitFor();
  await signTyped(page, "Firmante de Prueba");
  const { proofs } = await completedProofs(key, id);
  proofOf(proofs, "PASSWORD");
  assert.ok(!proofs.some((p) => p.method === "PASSKEY"), "no passkey was used");
  await page.context().close();
});

test("keyboard only: a signer creates the account from the signing page, confirms it and comes back", async () => {
  const { key } = newKey();
  const signer = uniqueEmail("teclado-cuenta");
  await create(key, {
    meta: { typedSignatureEnabled: true },
    recipients: [{ email: signer, name: "Kim Keys", role: "SIGNER", actionAuth: ["ACCOUNT"], fields: [field("SIGNATURE")] }],
  });
  const page = await phone(browser);
  const signingURL = await signingLink(signer);
  await page.goto(signingURL);
  const t = text.en;
  // Tab until the focus is on the link named name, then follow it with Enter.
  const tabTo = async (name, limit = 60) => {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => (document.activeElement?.textContent ?? "").trim() || document.activeElement?.id);
      if (focused === name) return;
    }
    assert.fail(`Tab never reached ${name}`);
  };
  await tabTo(t.createAccount);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: t.signUpHeading }).waitFor();
  // The email is filled in; the passwords are typed field after field, and Enter sends.
  await page.getByLabel(t.email).focus();
  await page.keyboard.press("Tab");
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press("Tab");
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: t.checkEmail }).waitFor();
  await page.goto(await verifyLink(signer));
  await tabTo("verify-password");
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press("Enter");
  await page.waitForURL(signingURL);
  await page.getByText(t.signedInAs).first().waitFor();
  await page.context().close();
});
