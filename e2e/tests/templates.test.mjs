// Templates into documents, and Documenso's other envelope operations, through the SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { apiURL, client, eventually, mailsTo, newKey, raw, signing, uniqueEmail } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";

const page = (text) => ({ texts: [{ x: 72, y: 700, text }] });
const box = (type, y, fieldMeta) => ({ type, page: 1, positionX: 10, positionY: y, width: 20, height: 4, ...(fieldMeta ? { fieldMeta } : {}) });

async function makeTemplate(sdk) {
  const { id } = await sdk.envelopes.create({
    payload: {
      title: "Plantilla de arriendo", type: "TEMPLATE",
      meta: { subject: "Firme el arriendo" },
      attachments: [{ label: "Reglamento", data: "https://example.com/reglamento" }],
      recipients: [
        { email: "aprobador@template.invalid", name: "Aprobador", role: "APPROVER", signingOrder: 1 },
        { email: "arrendador@template.invalid", name: "Arrendador", role: "SIGNER", signingOrder: 2, fields: [
          box("SIGNATURE", 10),
          box("TEXT", 20, { type: "text", label: "Dirección", characterLimit: 100 }),
          box("NUMBER", 30, { type: "number", minValue: 1, maxValue: 5000000 }),
          box("RADIO", 40, { type: "radio", values: [{ id: 1, checked: false, value: "Mensual" }, { id: 2, checked: false, value: "Anual" }] }),
          box("CHECKBOX", 50, { type: "checkbox", values: [{ id: 1, checked: false, value: "Mascotas" }, { id: 2, checked: false, value: "Estacionamiento" }] }),
          box("DROPDOWN", 60, { type: "dropdown", values: [{ value: "Santiago" }, { value: "Valparaíso" }] }),
          box("DATE", 70),
        ] },
        { email: "arrendatario@template.invalid", name: "Arrendatario", role: "SIGNER", signingOrder: 2, fields: [box("SIGNATURE", 80)] },
      ],
    },
    files: [{ fileName: "arriendo.pdf", content: makePDF([page("Contrato de arriendo"), { width: 792, height: 612 }]) }],
  });
  return sdk.envelopes.get({ envelopeId: id });
}

const byRole = (t) => ({
  approver: t.recipients.find((r) => r.role === "APPROVER"),
  lessor: t.recipients.find((r) => r.name === "Arrendador"),
  tenant: t.recipients.find((r) => r.name === "Arrendatario"),
});
const fieldOf = (t, type) => t.fields.find((f) => f.type === type);

test("use a template: plain, with overrides, prefills and a new PDF, and distributed to COMPLETED", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const tpl = await makeTemplate(sdk);
  const r = byRole(tpl);
  const tplNumber = Number(tpl.secondaryId.split("_")[1]);
  const direct = await raw("POST", "/envelope/distribute", { key, body: { envelopeId: tpl.id } });
  assert.equal(direct.status, 400, "a template is used, never sent itself");
  assert.equal(direct.json.code, "INVALID_REQUEST");
  assert.equal((await sdk.envelopes.get({ envelopeId: tpl.id })).status, "DRAFT");

  // 1. Plain: template recipients mapped by id, the unlisted one kept.
  const plain = await sdk.envelopes.use({ payload: { envelopeId: tpl.id, recipients: [
    { id: r.lessor.id, email: "dueno@example.com", name: "Dueño" },
  ] } });
  assert.equal(plain.recipients.length, 3);
  for (const rec of plain.recipients) assert.match(rec.signingUrl, new RegExp(`/sign/${rec.token}$`));
  const doc = await sdk.envelopes.get({ envelopeId: plain.id });
  assert.equal(doc.type, "DOCUMENT");
  assert.equal(doc.source, "TEMPLATE");
  assert.equal(doc.templateId, tplNumber);
  assert.equal(doc.status, "DRAFT");
  assert.equal(doc.title, "Plantilla de arriendo");
  assert.deepEqual(doc.recipients.map((x) => x.email).sort(), ["aprobador@template.invalid", "arrendatario@template.invalid", "dueno@example.com"]);
  assert.equal(doc.recipients.find((x) => x.email === "dueno@example.com").role, "SIGNER", "role always from the template");
  assert.ok(doc.recipients.every((x) => !tpl.recipients.some((t) => t.token === x.token)), "fresh tokens");
  assert.equal(doc.fields.length, tpl.fields.length);
  const log = await sdk.envelope.envelopeAuditLogFind({ envelopeId: plain.id, perPage: 100 });
  const created = log.data.find((x) => x.type === "DOCUMENT_CREATED");
  assert.deepEqual(created.data.source, { type: "TEMPLATE", templateId: tplNumber });
  const attachments = await sdk.envelopes.attachments.find({ envelopeId: plain.id });
  assert.deepEqual(attachments.data.map((a) => a.label), ["Reglamento"]);
  assert.equal((await sdk.envelope.envelopeFind({ templateId: tplNumber })).count, 1);

  // 2. Overrides, prefills of every type, a replacement PDF by file name.
  const replacement = makePDF([page("Contrato de arriendo, versión 2"), { width: 792, height: 612 }]);
  const tplItem = tpl.envelopeItems[0];
  const rich = await sdk.envelopes.use({
    payload: {
      envelopeId: tpl.id, externalId: "arriendo-42",
      recipients: [{ id: r.lessor.id, email: uniqueEmail("dueno"), name: "Dueña", signingOrder: 3 }],
      override: { title: "Arriendo Los Leones 42", subject: "Arriendo listo", language: "es", timezone: "America/Santiago", dateFormat: "dd/MM/yyyy" },
      prefillFields: [
        { id: fieldOf(tpl, "TEXT").id, type: "text", value: "Los Leones 42", label: "Dirección del inmueble" },
        { id: fieldOf(tpl, "NUMBER").id, type: "number", value: "650000" },
        { id: fieldOf(tpl, "RADIO").id, type: "radio", value: "Anual" },
        { id: fieldOf(tpl, "CHECKBOX").id, type: "checkbox", value: ["Mascotas", "Estacionamiento"] },
        { id: fieldOf(tpl, "DROPDOWN").id, type: "dropdown", value: "Valparaíso" },
        { id: fieldOf(tpl, "DATE").id, type: "date", value: "2026-12-01T15:00:00Z" },
      ],
      customDocumentData: [{ identifier: "v2.pdf", envelopeItemId: tplItem.id }],
      attachments: [{ label: "Inventario", data: "https://example.com/inventario" }],
      formValues: { depto: "42" },
    },
    files: [{ fileName: "v2.pdf", content: replacement }],
  });
  const richDoc = await sdk.envelopes.get({ envelopeId: rich.id });
  assert.equal(richDoc.title, "Arriendo Los Leones 42");
  assert.equal(richDoc.externalId, "arriendo-42");
  assert.equal(richDoc.documentMeta.subject, "Arriendo listo");
  assert.equal(richDoc.documentMeta.language, "es");
  assert.deepEqual(richDoc.formValues, { depto: "42" });
  assert.equal(richDoc.recipients.find((x) => x.name === "Dueña").signingOrder, 3);
  const rf = (type) => richDoc.fields.find((f) => f.type === type);
  assert.equal(rf("TEXT").fieldMeta.text, "Los Leones 42");
  assert.equal(rf("TEXT").fieldMeta.label, "Dirección del inmueble");
  assert.equal(rf("NUMBER").fieldMeta.value, "650000");
  assert.deepEqual(rf("RADIO").fieldMeta.values.map((v) => v.checked), [false, true]);
  assert.deepEqual(rf("CHECKBOX").fieldMeta.values.map((v) => v.checked), [true, true]);
  assert.equal(rf("DROPDOWN").fieldMeta.defaultValue, "Valparaíso");
  assert.equal(rf("DATE").inserted, true);
  assert.equal(rf("DATE").customText, "01/12/2026");
  const download = await fetch(`${apiURL}/envelope/item/${richDoc.envelopeItems[0].id}/download?version=original`, { headers: { Authorization: key } });
  assert.deepEqual(Buffer.from(await download.arrayBuffer()), Buffer.from(replacement), "the replacement, byte for byte");
  const after = await sdk.envelopes.get({ envelopeId: tpl.id });
  assert.deepEqual(after, tpl, "the template never changes");

  // 3. distributeDocument: the recipients sign it to COMPLETED; prefills are inserted on sending.
  const sent = await sdk.envelopes.use({ payload: { envelopeId: tpl.id, distributeDocument: true,
    recipients: [
      { id: r.approver.id, email: uniqueEmail("aprobador") }, { id: r.lessor.id, email: uniqueEmail("dueno") },
      { id: r.tenant.id, email: uniqueEmail("arrendatario") },
    ],
    prefillFields: [{ id: fieldOf(tpl, "TEXT").id, type: "text", value: "Prefijado" }] } });
  assert.equal((await sdk.envelopes.get({ envelopeId: sent.id })).status, "PENDING");
  const token = (role, name) => sent.recipients.find((x) => x.role === role && (!name || x.name === name)).token;
  let res = await signing("POST", token("APPROVER"), "/complete");
  assert.equal(res.status, 200, res.text);
  for (const name of ["Arrendador", "Arrendatario"]) {
    const t = token("SIGNER", name);
    const view = await signing("GET", t);
    for (const f of view.json.fields.filter((f) => f.type === "SIGNATURE")) {
      res = await signing("POST", t, "/fields", { fieldId: f.id, value: name });
      assert.equal(res.status, 200, res.text);
    }
    res = await signing("POST", t, "/complete");
    assert.equal(res.status, 200, res.text);
  }
  await eventually(async () => (await sdk.envelopes.get({ envelopeId: sent.id })).status === "COMPLETED", { what: "COMPLETED" });
  const done = await sdk.envelopes.get({ envelopeId: sent.id });
  assert.equal(done.fields.find((f) => f.type === "TEXT").customText, "Prefijado");
  const sentLog = await sdk.envelope.envelopeAuditLogFind({ envelopeId: sent.id, perPage: 100 });
  assert.ok(sentLog.data.some((x) => x.type === "DOCUMENT_FIELDS_AUTO_INSERTED"), "prefills recorded when inserted");
});

test("use refuses what does not fit the template", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const tpl = await makeTemplate(sdk);
  const r = byRole(tpl);
  const use = async (payload, files) => {
    const fd = new FormData();
    fd.append("payload", JSON.stringify({ envelopeId: tpl.id, ...payload }));
    for (const f of files ?? []) fd.append("files", new Blob([f.content]), f.fileName);
    return raw("POST", "/envelope/use", { key, body: fd });
  };
  let res = await use({ recipients: [{ id: 999999, email: "x@example.com" }] });
  assert.equal(res.status, 400);
  assert.equal(res.json.issues[0].path, "recipients[0].id");
  res = await use({ prefillFields: [{ id: fieldOf(tpl, "TEXT").id, type: "number", value: "1" }] });
  assert.equal(res.status, 400);
  assert.equal(res.json.issues[0].path, "prefillFields[0].type");
  res = await use({ prefillFields: [{ id: fieldOf(tpl, "RADIO").id, type: "radio", value: "Semanal" }] });
  assert.equal(res.status, 400);
  assert.equal(res.json.issues[0].path, "prefillFields[0].value");
  res = await use({ prefillFields: [{ id: 999999, type: "text", value: "x" }] });
  assert.equal(res.status, 400);
  const pdf = { fileName: "v2.pdf", content: makePDF([page("x"), { width: 792, height: 612 }]) };
  res = await use({ customDocumentData: [{ identifier: "otro.pdf", envelopeItemId: tpl.envelopeItems[0].id }] }, [pdf]);
  assert.equal(res.status, 404, res.text);
  res = await use({ customDocumentData: [{ identifier: "v2.pdf", envelopeItemId: "envelope_item_nope" }] }, [pdf]);
  assert.equal(res.status, 404, res.text);
  res = await use({ customDocumentData: [{ identifier: 0, envelopeItemId: tpl.envelopeItems[0].id }] }, [{ fileName: "one-page.pdf", content: makePDF([page("x")]) }]);
  assert.equal(res.status, 400, "a replacement must keep the page layout");
  res = await use({ recipients: [{ id: r.lessor.id, email: "not-an-email" }] });
  assert.equal(res.status, 400);

  const docId = (await sdk.envelopes.use({ payload: { envelopeId: tpl.id } })).id;
  const notTemplate = await raw("POST", "/envelope/use", { key, body: (() => {
    const fd = new FormData(); fd.append("payload", JSON.stringify({ envelopeId: docId })); return fd;
  })() });
  assert.equal(notTemplate.status, 400, "a DOCUMENT is not a template");
  const stranger = newKey().key;
  const other = await raw("POST", "/envelope/use", { key: stranger, body: (() => {
    const fd = new FormData(); fd.append("payload", JSON.stringify({ envelopeId: tpl.id })); return fd;
  })() });
  assert.equal(other.status, 404, "another team's template");
});

test("duplicate, delete (draft, pending, completed) and redistribute", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const signer = uniqueEmail("firmante");
  const { id } = await sdk.envelopes.create({ payload: { title: "Original", type: "DOCUMENT",
    recipients: [{ email: signer, name: "F", role: "SIGNER", fields: [box("SIGNATURE", 10)] }] },
    files: [{ fileName: "a.pdf", content: makePDF() }] });

  const copy = await sdk.envelopes.duplicate({ envelopeId: id });
  const orig = await sdk.envelopes.get({ envelopeId: id });
  const dup = await sdk.envelopes.get({ envelopeId: copy.id });
  assert.notEqual(dup.id, orig.id);
  assert.equal(dup.status, "DRAFT");
  assert.equal(dup.recipients.length, 1);
  assert.notEqual(dup.recipients[0].token, orig.recipients[0].token);
  assert.equal(dup.fields.length, 1);
  assert.equal(dup.envelopeItems.length, 1);

  assert.deepEqual(await sdk.envelopes.delete({ envelopeId: copy.id }), { success: true });
  await assert.rejects(sdk.envelopes.get({ envelopeId: copy.id }), (err) => err.statusCode === 404);

  // redistribute a PENDING envelope: a new request, a new deadline
  const dist = await sdk.envelopes.distribute({ envelopeId: id });
  await eventually(async () => (await mailsTo(signer)).length === 1, { what: "the first request" });
  const before = (await sdk.envelopes.get({ envelopeId: id })).recipients[0].expiresAt;
  await new Promise((r) => setTimeout(r, 20));
  const again = await sdk.envelopes.redistribute({ envelopeId: id, recipients: [dist.recipients[0].id] });
  assert.equal(again.success, true);
  await eventually(async () => (await mailsTo(signer)).length === 2, { what: "the second request" });
  const afterExpiry = (await sdk.envelopes.get({ envelopeId: id })).recipients[0].expiresAt;
  assert.ok(new Date(afterExpiry) > new Date(before), `expiresAt renewed: ${before} → ${afterExpiry}`);
  const emails = (await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 })).data.filter((x) => x.type === "EMAIL_SENT");
  assert.ok(emails.some((x) => x.data.isResending === true));

  // delete a PENDING envelope: removed, the signer told
  const pendingSigner = uniqueEmail("pendiente");
  const p = await sdk.envelopes.create({ payload: { title: "Pendiente", type: "DOCUMENT",
    recipients: [{ email: pendingSigner, name: "P", role: "SIGNER", fields: [box("SIGNATURE", 10)] }] },
    files: [{ fileName: "a.pdf", content: makePDF() }] });
  await sdk.envelopes.distribute({ envelopeId: p.id });
  await eventually(async () => (await mailsTo(pendingSigner)).length === 1, { what: "request" });
  assert.deepEqual(await sdk.envelopes.delete({ envelopeId: p.id }), { success: true });
  await assert.rejects(sdk.envelopes.get({ envelopeId: p.id }), (err) => err.statusCode === 404);
  await eventually(async () => (await mailsTo(pendingSigner)).some((m) => m.Subject.includes("cancelled")), { what: "deleted notice" });

  // delete a COMPLETED envelope: hidden from search, still readable, DOCUMENT_DELETED SOFT
  const view = await signing("GET", dist.recipients[0].token);
  await signing("POST", dist.recipients[0].token, "/fields", { fieldId: view.json.fields[0].id, value: "F" });
  await signing("POST", dist.recipients[0].token, "/complete");
  await eventually(async () => (await sdk.envelopes.get({ envelopeId: id })).status === "COMPLETED", { what: "COMPLETED" });
  assert.deepEqual(await sdk.envelopes.delete({ envelopeId: id }), { success: true });
  assert.equal((await sdk.envelope.envelopeFind({ query: "Original" })).count, 0);
  const soft = await sdk.envelopes.get({ envelopeId: id });
  assert.ok(soft.deletedAt);
  const log = await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 });
  assert.deepEqual(log.data.find((x) => x.type === "DOCUMENT_DELETED").data, { type: "SOFT" });
});

test("items and attachments of a draft", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const first = makePDF([page("uno")]);
  const { id } = await sdk.envelopes.create({ payload: { title: "Items", type: "DOCUMENT", attachments: [{ label: "A", data: "https://example.com/a" }] },
    files: [{ fileName: "uno.pdf", content: first }] });
  const added = await sdk.envelopes.items.createMany({ payload: { envelopeId: id }, files: [{ fileName: "dos.pdf", content: makePDF([page("dos")]) }] });
  assert.equal(added.data.length, 1);
  assert.equal(added.data[0].order, 2);
  let e = await sdk.envelopes.get({ envelopeId: id });
  const [a, b] = e.envelopeItems;
  const upd = await sdk.envelopes.items.updateMany({ envelopeId: id, data: [{ envelopeItemId: a.id, order: 2, title: "Primero" }, { envelopeItemId: b.id, order: 1 }] });
  assert.equal(upd.data.length, 2);
  e = await sdk.envelopes.get({ envelopeId: id });
  assert.deepEqual(e.envelopeItems.map((x) => [x.title, x.order]), [["dos.pdf", 1], ["Primero", 2]]);
  const dl = await fetch(`${apiURL}/envelope/item/${a.id}/download?version=original`, { headers: { Authorization: key } });
  assert.equal(dl.status, 200);
  assert.deepEqual(Buffer.from(await dl.arrayBuffer()), Buffer.from(first), "byte-identical to the upload");
  assert.deepEqual(await sdk.envelopes.items.delete({ envelopeId: id, envelopeItemId: b.id }), { success: true });
  const last = await raw("POST", "/envelope/item/delete", { key, body: { envelopeId: id, envelopeItemId: a.id } });
  assert.equal(last.status, 400, "the last document stays");

  const att = (await sdk.envelopes.attachments.find({ envelopeId: id })).data[0];
  assert.deepEqual(await sdk.envelopes.attachments.update({ id: att.id, data: { label: "B", data: "https://example.com/b" } }), { success: true });
  assert.deepEqual((await sdk.envelopes.attachments.find({ envelopeId: id })).data.map((x) => [x.label, x.data]), [["B", "https://example.com/b"]]);
  assert.deepEqual(await sdk.envelopes.attachments.delete({ id: att.id }), { success: true });
  assert.equal((await sdk.envelopes.attachments.find({ envelopeId: id })).data.length, 0);

  const types = (await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 })).data.map((x) => x.type);
  for (const t of ["ENVELOPE_ITEM_CREATED", "ENVELOPE_ITEM_UPDATED", "ENVELOPE_ITEM_DELETED"]) assert.ok(types.includes(t), `${t} in ${types}`);

  const stranger = newKey().key;
  for (const [method, path, body] of [
    ["GET", `/envelope/item/${a.id}/download?version=original`],
    ["POST", "/envelope/attachment/update", { id: att.id, data: { label: "x", data: "https://x.example" } }],
    ["POST", "/envelope/duplicate", { envelopeId: id }],
    ["POST", "/envelope/delete", { envelopeId: id }],
    ["POST", "/envelope/item/delete", { envelopeId: id, envelopeItemId: a.id }],
  ]) {
    const res = await raw(method, path, { key: stranger, body });
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
  }
});

test("use with distributeDocument that cannot be sent creates nothing", async () => {
  const { key } = newKey();
  const sdk = client(key);
  const { id } = await sdk.envelopes.create({
    payload: { title: "Sin firma", type: "TEMPLATE", recipients: [{ email: "firmante@template.invalid", name: "Firmante", role: "SIGNER" }] },
    files: [{ fileName: "x.pdf", content: makePDF([page("Sin campo de firma")]) }],
  });
  const before = await raw("GET", "/envelope?type=DOCUMENT&perPage=100", { key });
  const form = new FormData();
  form.append("payload", JSON.stringify({ envelopeId: id, distributeDocument: true }));
  const used = await raw("POST", "/envelope/use", { key, body: form });
  assert.equal(used.status, 400, used.text);
  assert.equal(used.json.code, "MISSING_SIGNATURE_FIELD");
  const after = await raw("GET", "/envelope?type=DOCUMENT&perPage=100", { key });
  assert.equal(after.json.count, before.json.count, "no DRAFT was left behind");
});
