// The hostile corpus (testdata/hostile) through the real binary: every document is uploaded; the
// refused ones get their 400 naming the file and the reason while the process's memory stays
// bounded; every accepted one is distributed, signed in Chromium and sealed, and poppler reads in
// the sealed pages exactly the shown pages' text plus the stamped value.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { apiURL, baseURL, eventually, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { drawSignature, launch, phone } from "./browser.mjs";

const corpus = path.resolve(import.meta.dirname, "..", "..", "testdata", "hostile");
const pid = process.env.SOBRE_E2E_PID;

// What the API must make of each document: the reason of a refusal, or the text shown.
const refused = {
  "ocg-hidden.pdf": "hidden by default",
  "xfa.pdf": "dynamic XFA",
  "objstm-bomb.pdf": "more than 64 MiB",
  "array-bomb.pdf": "MiB of memory",
  "content-bomb.pdf": "more than 64 MiB",
  "content-bomb-nested.pdf": "more than 64 MiB",
  "image-bomb.pdf": "pixels",
};
const accepted = {
  "clean.pdf": { shows: ["CLEAN DOCUMENT"] },
  "ocg-visible.pdf": { shows: ["LAYER TEXT SHOWN"] },
  "incremental.pdf": { shows: ["UPDATED REVISION TEXT"], hides: ["ORIGINAL REVISION TEXT"] },
  // A placeholder is whited out, not redacted (docs/documents.md): its text stays, shown and sealed alike.
  "placeholder.pdf": { shows: ["Contract body line"], placeholder: "{{signature}}" },
  "acroform.pdf": { shows: ["FORM DOCUMENT", "FORM VALUE 123"] },
  "annotations.pdf": { shows: ["ANNOTATED DOCUMENT", "ANNOTATION TEXT"], hides: ["HIDDEN ANNOTATION"] },
  "javascript.pdf": { shows: ["SCRIPTED DOCUMENT"] },
  "embedded.pdf": { shows: ["DOCUMENT WITH ATTACHMENT"], hides: ["EMBEDDED SECRET"] },
  "xref-stream-plain.pdf": { shows: ["PLAIN XREF STREAM"] },
  "pages-300.pdf": { shows: ["Page 1 of 300", "Page 300 of 300"] },
};

// memory reads the server process's resident set now and at its peak, in MiB; resetPeak starts
// a new peak (Linux: clear_refs 5).
function memory() {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))[1]) / 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}
function resetPeak() { writeFileSync(`/proc/${pid}/clear_refs`, "5"); }

const tool = (cmd, ...args) => {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  } catch (err) {
    return `${err.stdout ?? ""}${err.stderr ?? ""}`;
  }
};
const words = (s) => s.replace(/\s+/g, " ").trim();

async function upload(key, file, fields) {
  const form = new FormData();
  form.append("payload", JSON.stringify({
    title: file, type: "DOCUMENT",
    recipients: [{ email: uniqueEmail("hostile"), name: "Ana Hostil", role: "SIGNER", fields }],
  }));
  form.append("files", new Blob([readFileSync(path.join(corpus, file))], { type: "application/pdf" }), file);
  return raw("POST", "/envelope/create", { key, body: form });
}

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test("hostile uploads are refused with a 400 naming the file and the limit, within bounded memory", { skip: !pid && "SOBRE_E2E_PID is not set" }, async () => {
  const { key } = newKey();
  const start = memory();
  resetPeak();
  for (const [file, reason] of Object.entries(refused)) {
    const t0 = Date.now();
    const res = await upload(key, file, []);
    assert.equal(res.status, 400, `${file}: ${res.text}`);
    assert.equal(res.json.code, "INVALID_BODY");
    assert.equal(res.json.issues[0].path, "files[0]", file);
    assert.match(res.json.issues[0].message, new RegExp(`${file.replace(".", "\\.")}.*${reason}`), file);
    const m = memory();
    console.log(`# ${file}: refused in ${Date.now() - t0} ms, RSS ${m.rss.toFixed(0)} MiB, peak ${m.peak.toFixed(0)} MiB`);
  }
  const peak = memory().peak;
  console.log(`# bombs: RSS ${start.rss.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB while refusing`);
  assert.ok(peak < 300, `the server process peaked at ${peak.toFixed(0)} MiB while refusing bombs`);
});

for (const [file, want] of Object.entries(accepted)) {
  test(`${file}: shown, signed in Chromium and sealed with the same text`, async () => {
    const { key } = newKey();
    const fields = [
      { type: "SIGNATURE", page: 1, positionX: 55, positionY: 80, width: 30, height: 6 },
      { type: "TEXT", page: 1, positionX: 10, positionY: 90, width: 40, height: 4, fieldMeta: { type: "text", label: "Valor" } },
    ];
    const created = await upload(key, file, want.placeholder ? fields.slice(1) : fields);
    assert.equal(created.status, 200, `${file}: ${created.text}`);
    const id = created.json.id;
    const env = await raw("GET", `/envelope/${id}`, { key });
    const itemId = env.json.envelopeItems[0].id;
    if (want.placeholder) {
      const f = await raw("POST", "/envelope/field/create-many", { key, body: { envelopeId: id,
        data: [{ recipientId: env.json.recipients[0].id, type: "SIGNATURE", placeholder: want.placeholder }] } });
      assert.equal(f.status, 200, f.text);
    }
    const dist = await raw("POST", "/envelope/distribute", { key, body: { envelopeId: id } });
    assert.equal(dist.status, 200, dist.text);
    const token = dist.json.recipients[0].token;

    const text = (await signing("GET", token)).json.fields.find((f) => f.type === "TEXT");
    assert.equal((await signing("POST", token, "/fields", { fieldId: text.id, value: "VALOR SELLADO" })).status, 200);
    const page = await phone(browser);
    await page.goto(`${baseURL}/sign/${token}`);
    // Every page is drawn by the server and shown as an image.
    const first = page.locator("section.document img").first();
    await first.scrollIntoViewIfNeeded();
    await eventually(() => first.evaluate((img) => img.complete && img.naturalWidth > 0), { what: `${file}: page 1 drawn` });
    await drawSignature(page);
    await page.getByRole("button", { name: "Sign", exact: true }).click();
    await page.getByRole("heading", { name: "Done" }).waitFor();
    await page.context().close();
    await eventually(async () => (await raw("GET", `/envelope/${id}`, { key })).json.status === "COMPLETED",
      { what: `${file}: COMPLETED`, timeout: 60000 });

    const res = await fetch(`${apiURL}/envelope/item/${itemId}/download?version=signed`, { headers: { Authorization: key } });
    assert.equal(res.status, 200);
    const sealed = Buffer.from(await res.arrayBuffer());
    // The shown document is the sealed file's first revision, and its hash is the one the
    // signer's completion entry records.
    const eof = sealed.indexOf("%%EOF") + "%%EOF".length;
    const shown = sealed.subarray(0, sealed[eof] === 0x0a ? eof + 1 : eof);
    const log = await raw("GET", `/envelope/${id}/audit-log?perPage=100`, { key });
    const completion = log.json.data.find((e) => e.type === "DOCUMENT_RECIPIENT_COMPLETED");
    assert.equal(completion.data.documents[0].sha256, createHash("sha256").update(shown).digest("hex"));

    const dir = mkdtempSync(path.join(tmpdir(), "hostile-"));
    const sealedFile = path.join(dir, "sealed.pdf"), shownFile = path.join(dir, "shown.pdf");
    writeFileSync(sealedFile, sealed);
    writeFileSync(shownFile, shown);
    assert.match(tool("pdfsig", sealedFile), /Signature is Valid/, file);
    assert.match(tool("qpdf", "--check", sealedFile), /No syntax or stream encoding errors found/, file);
    const pages = Number(tool("pdfinfo", shownFile).match(/^Pages:\s+(\d+)/m)[1]);
    const shownText = tool("pdftotext", shownFile, "-");
    const sealedText = tool("pdftotext", "-l", String(pages), sealedFile, "-");
    for (const s of want.shows) assert.ok(shownText.includes(s), `${file} shows ${s}`);
    for (const s of want.hides ?? []) assert.ok(!sealedText.includes(s), `${file} does not seal ${s}`);
    assert.ok(sealedText.includes("VALOR SELLADO"), `${file}: the stamped value is sealed`);
    assert.equal(words(sealedText.replace("VALOR SELLADO", "")), words(shownText), `${file}: sealed pages read as the shown ones plus the stamp`);
  });
}

test("page images of a 300-page document are drawn within bounded memory", { skip: !pid && "SOBRE_E2E_PID is not set" }, async () => {
  const { key } = newKey();
  const created = await upload(key, "pages-300.pdf", [{ type: "SIGNATURE", page: 300, positionX: 10, positionY: 10, width: 30, height: 6 }]);
  assert.equal(created.status, 200, created.text);
  const id = created.json.id;
  const dist = await raw("POST", "/envelope/distribute", { key, body: { envelopeId: id } });
  const token = dist.json.recipients[0].token;
  const env = await raw("GET", `/envelope/${id}`, { key });
  const itemId = env.json.envelopeItems[0].id;
  // 306 images of one link may pass its rate limit (SOBRE_RATE_LIMIT_SIGNING_LINK, 300 a
  // minute): the client waits as Retry-After says, as a browser showing the pages would, and the
  // wait is not counted as drawing.
  let waited = 0;
  const image = async (p, query = "") => {
    for (;;) {
      const res = await fetch(`${baseURL}/sign/${token}/pages/${itemId}/${p}.png${query}`);
      if (res.status === 429) {
        const wait = Number(res.headers.get("retry-after") ?? "1") * 1000;
        await res.arrayBuffer();
        waited += wait;
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      assert.equal(res.status, 200, `page ${p}`);
      await res.arrayBuffer();
      return;
    }
  };
  resetPeak();
  const t0 = Date.now();
  for (let p = 1; p <= 300; p += 1) await image(p, `?w=${p % 2 ? 1000 : 2000}`);
  const drawn = Date.now() - t0 - waited;
  waited = 0;
  const t1 = Date.now();
  for (let p = 1; p <= 300; p += 50) await image(p);
  const m = memory();
  console.log(`# 300 pages drawn in ${drawn} ms (${(drawn / 300).toFixed(1)} ms/page), 6 again from the cache in ${Date.now() - t1 - waited} ms; RSS ${m.rss.toFixed(0)} MiB, peak ${m.peak.toFixed(0)} MiB`);
  assert.ok(m.peak < 300, `the server process peaked at ${m.peak.toFixed(0)} MiB drawing pages`);
});
