// Bulk send: a CSV of rows made into documents from a template and sent, through raw HTTP (the
// Documenso SDK has no bulk send endpoint).
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, eventually, mailsTo, newKey, raw, uniqueEmail } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";

async function oneSignerTemplate(sdk) {
  const { id } = await sdk.envelopes.create({
    payload: {
      title: "Convenio masivo", type: "TEMPLATE",
      recipients: [{ email: "firmante@template.invalid", name: "Firmante", role: "SIGNER", fields: [
        { type: "SIGNATURE", page: 1, positionX: 10, positionY: 10, width: 20, height: 4 },
        { type: "TEXT", page: 1, positionX: 10, positionY: 30, width: 20, height: 4, fieldMeta: { type: "text", label: "Empresa" } },
      ] }],
    },
    files: [{ fileName: "convenio.pdf", content: makePDF([{ texts: [{ x: 72, y: 700, text: "Convenio" }] }]) }],
  });
  return id;
}

function csvForm(templateId, csv) {
  const form = new FormData();
  form.append("templateId", templateId);
  form.append("distributeDocument", "true");
  form.append("file", new Blob([csv], { type: "text/csv" }), "filas.csv");
  return form;
}

test("bulk send: a CSV with 3 bad rows among good ones sends the good ones and reports the bad", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const tpl = await oneSignerTemplate(sdk);
  const good = [uniqueEmail("uno"), uniqueEmail("dos"), uniqueEmail("tres"), uniqueEmail("cuatro")];
  const csv = [
    "recipient_1_email,recipient_1_name,Empresa",
    `${good[0]},Uno,Acme`,
    "no-es-correo,Malo,",
    `${good[1]},Dos,`,
    "otro@,Malo,",
    `${good[2]},,Beta`,
    `x@example.com,${"n".repeat(300)},`,
    `${good[3]},Cuatro,`,
  ].join("\n");
  const sent = await raw("POST", "/template/bulk-send", { key, body: csvForm(tpl, csv) });
  assert.equal(sent.status, 200, sent.text);
  assert.match(sent.json.jobId, /^bulk_/);
  assert.equal(sent.json.total, 7);

  const job = await eventually(async () => {
    const p = await raw("GET", `/template/bulk-send/${sent.json.jobId}`, { key });
    assert.equal(p.status, 200, p.text);
    return p.json.status === "COMPLETED" && p.json;
  }, { timeout: 60000, what: "the job to complete" });
  assert.equal(job.total, 7);
  assert.equal(job.sent, 4);
  assert.equal(job.failed, 3);
  assert.deepEqual(job.rows.map((r) => r.status), ["SENT", "FAILED", "SENT", "FAILED", "SENT", "FAILED", "SENT"]);
  assert.match(job.rows[1].error, /"no-es-correo" is not an email address/);
  assert.match(job.rows[5].error, /recipient_1_name/);

  const doc = await sdk.envelopes.get({ envelopeId: job.rows[0].envelopeId });
  assert.equal(doc.status, "PENDING");
  assert.equal(doc.source, "TEMPLATE");
  assert.equal(doc.recipients[0].email, good[0]);
  assert.equal(doc.fields.find((f) => f.type === "TEXT").fieldMeta.text, "Acme");
  for (const address of good) {
    const mails = await eventually(async () => (await mailsTo(address)).length > 0 && mailsTo(address), { what: `a mail to ${address}` });
    assert.equal(mails.length, 1, `${address}: one signing request`);
  }

  const other = newKey();
  assert.equal((await raw("GET", `/template/bulk-send/${sent.json.jobId}`, { key: other.key })).status, 404);
});

test("bulk send: malformed requests are refused naming the row and the column", async () => {
  const { key } = newKey();
  const tpl = await oneSignerTemplate(client(key));
  const missing = await raw("POST", "/template/bulk-send", { key, body: csvForm(tpl, "recipient_1_name\nAna\n") });
  assert.equal(missing.status, 400);
  assert.match(missing.text, /recipient_1_email/);
  const short = await raw("POST", "/template/bulk-send", { key, body: csvForm(tpl, "recipient_1_email,recipient_1_name\na@example.com,A\nb@example.com\n") });
  assert.equal(short.status, 400);
  assert.match(short.text, /row 2 has 1 values/);
  const many = await raw("POST", "/template/bulk-send", { key, body: { templateId: tpl, rows: Array.from({ length: 1001 }, () => ({ recipients: [] })) } });
  assert.equal(many.status, 400);
  assert.equal(many.json.issues[0].path, "rows");
});
