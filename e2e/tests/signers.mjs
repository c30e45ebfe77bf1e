// Shared steps of the signing-page tests: an envelope made and distributed through the HTTP API,
// its links read from the mail sink, and digests signed as an advanced-signature holder would.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, mailsTo, message, raw } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";

export const field = (type, extra = {}) => ({ type, page: 1, positionX: 10, positionY: 10, width: 25, height: 6, ...extra });
const feaDir = path.resolve(import.meta.dirname, "..", "..", "testdata", "fea");

// create makes and distributes an envelope through the HTTP API (raw: the SDK's enums lack the
// Chilean field types and auth methods) and returns its id and recipients' tokens by email.
export async function create(key, { title = "Contrato de arriendo", meta = {}, recipients }) {
  const form = new FormData();
  form.append("payload", JSON.stringify({ title, type: "DOCUMENT", recipients, meta }));
  form.append("files", new Blob([makePDF([{ texts: [{ x: 72, y: 760, text: "CONTRATO DE ARRIENDO" }, { x: 72, y: 700, text: "Las partes acuerdan lo siguiente." }] }])], { type: "application/pdf" }), "contrato.pdf");
  const created = await raw("POST", "/envelope/create", { key, body: form });
  assert.equal(created.status, 200, created.text);
  const id = created.json.id;
  const dist = await raw("POST", "/envelope/distribute", { key, body: { envelopeId: id } });
  assert.equal(dist.status, 200, dist.text);
  return { id, tokens: Object.fromEntries(dist.json.recipients.map((r) => [r.email, r.token])) };
}

// linkFrom waits for the mail to address whose subject matches and returns the signing link in it.
export async function linkFrom(address, subject = /./) {
  const msg = await eventually(async () => (await mailsTo(address)).find((m) => subject.test(m.Subject)), { what: `mail to ${address}` });
  const full = await message(msg.ID);
  const url = full.Text.match(/https?:\/\/\S+\/sign\/[A-Za-z0-9_-]+/);
  assert.ok(url, `no signing link in ${full.Text}`);
  return url[0];
}

export async function envelopeStatus(key, id) {
  const r = await raw("GET", `/envelope/${id}`, { key });
  return r.json;
}

// signDigest signs a digest as a FEA holder would, with openssl and a certificate of the test CA.
export function signDigest(digest, holder = "holder-44444444-4") {
  const dir = mkdtempSync(path.join(tmpdir(), "fea-"));
  writeFileSync(path.join(dir, "digest.txt"), digest);
  execFileSync("openssl", ["cms", "-sign", "-binary", "-md", "sha256", "-in", path.join(dir, "digest.txt"),
    "-signer", path.join(feaDir, `${holder}.pem`), "-inkey", path.join(feaDir, `${holder}.key`),
    "-certfile", path.join(feaDir, "intermediate.pem"), "-outform", "PEM", "-out", path.join(dir, "sig.pem")]);
  return readFileSync(path.join(dir, "sig.pem"), "utf8");
}

