// The sealed evidence of a completed envelope: two signers with names beyond ASCII, every field
// type, a drawn signature; the sealed PDF checked by poppler's pdfsig and pdftotext and by qpdf.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { apiURL, eventually, mailsTo, message, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";
import { drawSignature, launch, phone, shot } from "./browser.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const box = (type, y, extra = {}) => ({ type, page: 1, positionX: 10, positionY: y, width: 40, height: 4, ...extra });

async function download(key, p) {
  const res = await fetch(`${apiURL}${p}`, { headers: { Authorization: key } });
  return { status: res.status, type: res.headers.get("content-type"), body: Buffer.from(await res.arrayBuffer()) };
}

function check(file, cmd, ...args) {
  try {
    return execFileSync(cmd, [...args, file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    return `${err.stdout ?? ""}${err.stderr ?? ""}`;
  }
}

test("a completed envelope yields a sealed PDF that pdfsig validates and that shows every value", async () => {
  const { key } = newKey();
  const jose = uniqueEmail("jose"), zoe = uniqueEmail("zoe");
  const form = new FormData();
  form.append("payload", JSON.stringify({
    title: "Contrato de servicios", type: "DOCUMENT", meta: { language: "es", timezone: "America/Santiago", typedSignatureEnabled: true },
    recipients: [
      { email: jose, name: "José Ñúñez", role: "SIGNER", signingOrder: 1, fields: [
        box("SIGNATURE", 10), box("NAME", 16), box("EMAIL", 22), box("DATE", 28),
        box("TEXT", 34, { fieldMeta: { type: "text", label: "Cargo" } }),
        box("NUMBER", 40, { fieldMeta: { type: "number" } }),
        box("CHECKBOX", 46, { fieldMeta: { type: "checkbox", values: [{ id: 1, checked: false, value: "Mascotas" }, { id: 2, checked: false, value: "Estacionamiento" }] } }),
        box("RADIO", 52, { fieldMeta: { type: "radio", values: [{ id: 1, checked: false, value: "Mensual" }, { id: 2, checked: false, value: "Anual" }] } }),
        box("DROPDOWN", 58, { fieldMeta: { type: "dropdown", values: [{ value: "Santiago" }, { value: "Valparaíso" }] } }),
        box("RUT", 64), box("INITIALS", 70),
      ] },
      { email: zoe, name: "Zoë Łukasz-Ğüç", role: "SIGNER", signingOrder: 2, fields: [box("SIGNATURE", 80), box("NAME", 86)] },
    ],
  }));
  form.append("files", new Blob([makePDF([{ texts: [{ x: 72, y: 800, text: "CONTRATO DE SERVICIOS" }] }])], { type: "application/pdf" }), "servicios.pdf");
  const created = await raw("POST", "/envelope/create", { key, body: form });
  assert.equal(created.status, 200, created.text);
  const id = created.json.id;
  const dist = await raw("POST", "/envelope/distribute", { key, body: { envelopeId: id } });
  const tok = Object.fromEntries(dist.json.recipients.map((r) => [r.email, r.token]));
  const env = await raw("GET", `/envelope/${id}`, { key });
  const itemId = env.json.envelopeItems[0].id;
  const early = await download(key, `/envelope/item/${itemId}/download?version=signed`);
  assert.equal(early.status, 200, "before COMPLETED, signed is the document as it is now (Documenso's default)");
  assert.ok(!early.body.includes("/ByteRange"), "not sealed yet");
  const byDefault = await download(key, `/envelope/item/${itemId}/download`);
  assert.equal(byDefault.status, 200);
  assert.ok(byDefault.body.equals(early.body), "no version is version=signed");

  // José fills every field through the signing API and draws his signature on the page.
  const fields = Object.fromEntries((await signing("GET", tok[jose])).json.fields.map((f) => [f.type, f]));
  const values = { NAME: "José Ñúñez", EMAIL: jose, TEXT: "Gerente de operaciones", NUMBER: "1234.5", CHECKBOX: ["Mascotas"],
    RADIO: "Anual", DROPDOWN: "Valparaíso", RUT: "12.345.678-5", INITIALS: "JÑ" };
  for (const [type, value] of Object.entries(values)) {
    const r = await signing("POST", tok[jose], "/fields", { fieldId: fields[type].id, value });
    assert.equal(r.status, 200, `${type}: ${r.text}`);
  }
  const page = await phone(browser, { locale: "es-CL" });
  await page.goto(`${process.env.SOBRE_E2E_URL ?? "http://127.0.0.1:18080"}/sign/${tok[jose]}`);
  await drawSignature(page);
  await page.getByRole("button", { name: "Firmar", exact: true }).click();
  await page.getByRole("heading", { name: "Listo" }).waitFor();

  const zf = Object.fromEntries((await signing("GET", tok[zoe])).json.fields.map((f) => [f.type, f]));
  assert.equal((await signing("POST", tok[zoe], "/fields", { fieldId: zf.SIGNATURE.id, value: "Zoë Łukasz-Ğüç" })).status, 200);
  assert.equal((await signing("POST", tok[zoe], "/fields", { fieldId: zf.NAME.id, value: "Zoë Łukasz-Ğüç" })).status, 200);
  const zc = await signing("POST", tok[zoe], "/complete");
  assert.equal(zc.status, 200, zc.text);
  await eventually(async () => (await raw("GET", `/envelope/${id}`, { key })).json.status === "COMPLETED", { what: "COMPLETED", timeout: 30000 });

  const dir = mkdtempSync(path.join(tmpdir(), "sealed-"));
  const sealed = await download(key, `/envelope/item/${itemId}/download?version=signed`);
  assert.equal(sealed.status, 200);
  assert.equal(sealed.type, "application/pdf");
  const file = path.join(dir, "sealed.pdf");
  writeFileSync(file, sealed.body);
  assert.match(check(file, "pdfsig"), /Signature is Valid/);
  assert.match(check(file, "qpdf", "--check"), /No syntax or stream encoding errors found/);
  // Each signer's completion entry records the document as shown, and the sealed file begins
  // with exactly those bytes: the stored document is one revision, the seal appended to it.
  const log = await raw("GET", `/envelope/${id}/audit-log?perPage=100`, { key });
  const completions = log.json.data.filter((e) => e.type === "DOCUMENT_RECIPIENT_COMPLETED");
  assert.equal(completions.length, 2);
  const eof = sealed.body.indexOf("%%EOF") + "%%EOF".length;
  const shownLength = sealed.body[eof] === 0x0a ? eof + 1 : eof;
  const prefixHash = createHash("sha256").update(sealed.body.subarray(0, shownLength)).digest("hex");
  for (const c of completions) {
    assert.deepEqual(c.data.documents, [{ envelopeItemId: itemId, sha256: prefixHash }], "the shown document's hash, the sealed file's first revision");
  }
  const text = check(file, "pdftotext", "-enc", "UTF-8", "-layout").replace(/\s+/g, " ");
  const pdftext = execFileSync("pdftotext", [file, "-"], { encoding: "utf8" });
  for (const want of ["CONTRATO DE SERVICIOS", "José Ñúñez", "Zoë Łukasz-Ğüç", "Gerente de operaciones", "1234.5", "Mascotas", "Anual",
    "Valparaíso", "12345678-5", "JÑ", "Certificado de finalización"]) {
    assert.ok(pdftext.includes(want) || text.includes(want), `the sealed PDF shows ${want}`);
  }
  // One flipped byte: pdfsig reports the digest mismatch.
  const tampered = Buffer.from(sealed.body);
  const at = tampered.indexOf("CONTRATO");
  tampered[at > 0 ? at : 200] ^= 1;
  writeFileSync(file, tampered);
  assert.match(check(file, "pdfsig"), /Digest Mismatch/);

  const cert = await download(key, `/envelope/${id}/certificate/download`);
  assert.equal(cert.status, 200);
  writeFileSync(path.join(dir, "certificate.pdf"), cert.body);
  assert.match(check(path.join(dir, "certificate.pdf"), "pdfsig"), /Signature is Valid/);
  const audit = await download(key, `/envelope/${id}/audit-log/download`);
  assert.equal(audit.status, 200);
  writeFileSync(path.join(dir, "audit.pdf"), audit.body);
  assert.match(execFileSync("pdftotext", [path.join(dir, "audit.pdf"), "-"], { encoding: "utf8" }), /DOCUMENT_COMPLETED/);
  const original = await download(key, `/envelope/item/${itemId}/download?version=original`);
  assert.equal(original.status, 200);

  // The completion mail carries the sealed PDF.
  const done = await eventually(async () => (await mailsTo(zoe)).find((m) => /Completado/.test(m.Subject)), { what: "completion mail" });
  const full = await message(done.ID);
  assert.equal(full.Attachments.length, 1);
  assert.ok(full.Attachments[0].Size > sealed.body.length * 0.9);
  await shot(page, "15-sealed-signer-done");
});
