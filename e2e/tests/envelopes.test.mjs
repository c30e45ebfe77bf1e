// The draft-time envelope API, driven through the official Documenso SDK: create, read, search,
// update, fields, recipients, attachments and the audit log, asserting responses and what a
// second read returns.
import { test } from "node:test";
import assert from "node:assert/strict";
import { client, newKey, raw } from "./helpers.mjs";
import { makePDF } from "./pdf.mjs";

const contract = () => makePDF([
  { texts: [{ x: 72, y: 760, text: "Contrato de prestacion de servicios" }, { x: 100, y: 200, text: "Firma: {{sig}}" }] },
  { width: 792, height: 612, texts: [{ x: 72, y: 500, text: "Anexo {{sig}}" }] },
]);

async function createDocument(sdk, payload = {}, files = [{ fileName: "contrato.pdf", content: contract() }]) {
  return sdk.envelopes.create({
    payload: {
      title: "Contrato de arriendo",
      type: "DOCUMENT",
      externalId: "ext-001",
      recipients: [
        {
          email: "ana@example.com", name: "Ana Pérez", role: "SIGNER", signingOrder: 1,
          fields: [
            { type: "SIGNATURE", page: 1, positionX: 10, positionY: 70, width: 30, height: 8 },
            { type: "TEXT", page: 2, positionX: 5, positionY: 5, width: 20, height: 5, fieldMeta: { type: "text", label: "Cargo", required: true } },
          ],
        },
        { email: "", name: "Copia", role: "CC" },
      ],
      meta: { subject: "Por favor firme", language: "es", timezone: "America/Santiago" },
      attachments: [{ label: "Términos", data: "https://example.com/terminos" }],
      formValues: { rut: "12345678-5", aceptado: true },
      ...payload,
    },
    files,
  });
}

test("create then get returns the whole envelope with Documenso's defaults", async () => {
  const sdk = client(newKey().key);
  const { id } = await createDocument(sdk);
  assert.match(id, /^envelope_[a-z]{16}$/);
  const e = await sdk.envelopes.get({ envelopeId: id });
  assert.equal(e.id, id);
  assert.equal(e.type, "DOCUMENT");
  assert.equal(e.status, "DRAFT");
  assert.equal(e.source, "DOCUMENT");
  assert.equal(e.visibility, "EVERYONE");
  assert.equal(e.internalVersion, 2);
  assert.match(e.secondaryId, /^document_\d+$/);
  assert.equal(e.externalId, "ext-001");
  assert.equal(e.templateId, null);
  assert.deepEqual(e.formValues, { rut: "12345678-5", aceptado: true });
  const m = e.documentMeta;
  assert.equal(m.signingOrder, "PARALLEL");
  assert.equal(m.distributionMethod, "EMAIL");
  assert.equal(m.language, "es");
  assert.equal(m.dateFormat, "yyyy-MM-dd hh:mm a");
  assert.equal(m.timezone, "America/Santiago");
  assert.equal(m.subject, "Por favor firme");
  assert.equal(m.typedSignatureEnabled && m.uploadSignatureEnabled && m.drawSignatureEnabled, true);
  assert.deepEqual(Object.values(m.emailSettings), Array(9).fill(true));
  assert.equal(e.envelopeItems.length, 1);
  assert.equal(e.envelopeItems[0].title, "contrato.pdf");
  assert.equal(e.envelopeItems[0].order, 1);
  assert.equal(e.recipients.length, 2);
  const [ana, cc] = e.recipients;
  assert.equal(ana.name, "Ana Pérez");
  assert.equal(ana.signingOrder, 1);
  assert.equal(ana.readStatus, "NOT_OPENED");
  assert.equal(ana.signingStatus, "NOT_SIGNED");
  assert.equal(ana.sendStatus, "NOT_SENT");
  assert.ok(ana.token.length >= 22, "recipient tokens carry at least 128 bits");
  assert.notEqual(ana.token, cc.token);
  assert.equal(cc.email, "");
  assert.equal(e.fields.length, 2);
  const text = e.fields.find((f) => f.type === "TEXT");
  assert.equal(text.page, 2);
  assert.equal(text.recipientId, ana.id);
  assert.equal(text.fieldMeta.label, "Cargo");
  assert.equal(text.fieldMeta.fontSize, 12);
  assert.equal(e.team.id, e.teamId);
  assert.equal(e.user.id, e.userId);
});

test("a template gets a template_ secondary id and get-many finds envelopes by each id form", async () => {
  const sdk = client(newKey().key);
  const doc = await createDocument(sdk);
  const tpl = await createDocument(sdk, { type: "TEMPLATE", title: "Plantilla" });
  const t = await sdk.envelopes.get({ envelopeId: tpl.id });
  assert.match(t.secondaryId, /^template_\d+$/);
  const d = await sdk.envelopes.get({ envelopeId: doc.id });

  const byEnvelope = await sdk.envelope.envelopeGetMany({ ids: { type: "envelopeId", ids: [tpl.id, doc.id] } });
  assert.deepEqual(byEnvelope.data.map((e) => e.id), [tpl.id, doc.id]);
  const byDocument = await sdk.envelope.envelopeGetMany({ ids: { type: "documentId", ids: [Number(d.secondaryId.split("_")[1])] } });
  assert.deepEqual(byDocument.data.map((e) => e.id), [doc.id]);
  const byTemplate = await sdk.envelope.envelopeGetMany({ ids: { type: "templateId", ids: [Number(t.secondaryId.split("_")[1])] } });
  assert.deepEqual(byTemplate.data.map((e) => e.id), [tpl.id]);
});

test("search matches title, external id and recipients, filters, pages and orders", async () => {
  const sdk = client(newKey().key);
  const ids = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await createDocument(sdk, { title: `Arriendo ${i}`, externalId: `ext-${i}` })).id);
  }
  const tpl = await createDocument(sdk, { type: "TEMPLATE", title: "Plantilla de venta" });

  let res = await sdk.envelope.envelopeFind({});
  assert.equal(res.count, 4);
  assert.deepEqual(res.data.map((e) => e.id), [tpl.id, ...ids.slice().reverse()], "newest first by default");
  assert.equal(res.data[0].documentMeta, undefined, "the summary carries no documentMeta");
  assert.equal(res.data[0].fields, undefined);
  assert.equal(res.data[0].recipients.length, 2);

  res = await sdk.envelope.envelopeFind({ orderByDirection: "asc", perPage: 2, page: 2 });
  assert.deepEqual(res.data.map((e) => e.id), [ids[2], tpl.id]);
  assert.equal(res.totalPages, 2);
  assert.equal(res.currentPage, 2);

  assert.deepEqual((await sdk.envelope.envelopeFind({ query: "arriendo 1" })).data.map((e) => e.id), [ids[1]]);
  assert.deepEqual((await sdk.envelope.envelopeFind({ query: "ext-2" })).data.map((e) => e.id), [ids[2]]);
  assert.equal((await sdk.envelope.envelopeFind({ query: "ana@example" })).count, 4);
  assert.equal((await sdk.envelope.envelopeFind({ query: "Pérez" })).count, 4);
  assert.deepEqual((await sdk.envelope.envelopeFind({ type: "TEMPLATE" })).data.map((e) => e.id), [tpl.id]);
  assert.equal((await sdk.envelope.envelopeFind({ status: "DRAFT", source: "DOCUMENT" })).count, 4);
  assert.equal((await sdk.envelope.envelopeFind({ status: "PENDING" })).count, 0);
  assert.equal((await sdk.envelope.envelopeFind({ hasExpiredRecipients: "true" })).count, 0);
  assert.equal((await sdk.envelope.envelopeFind({ hasExpiredRecipients: "false" })).count, 4);

  const bad = await raw("GET", "/envelope?perPage=0", { key: sdk.key });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.issues[0].path, "perPage");
});

test("update changes data and meta, and the audit log records each change", async () => {
  const sdk = client(newKey().key);
  const { id } = await createDocument(sdk);
  const res = await sdk.envelopes.update({
    envelopeId: id,
    data: { title: "Contrato firmado", externalId: null, visibility: "MANAGER_AND_ABOVE" },
    meta: {
      signingOrder: "SEQUENTIAL", dateFormat: "dd/MM/yyyy",
      reminderSettings: { sendAfter: { unit: "day", amount: 2 }, repeatEvery: { unit: "day", amount: 1 } },
      envelopeExpirationPeriod: { unit: "week", amount: 2 },
    },
  });
  assert.equal(res.title, "Contrato firmado");
  assert.equal(res.externalId, null);
  const e = await sdk.envelopes.get({ envelopeId: id });
  assert.equal(e.visibility, "MANAGER_AND_ABOVE");
  assert.equal(e.documentMeta.signingOrder, "SEQUENTIAL");
  assert.equal(e.documentMeta.dateFormat, "dd/MM/yyyy");
  assert.deepEqual(e.documentMeta.envelopeExpirationPeriod, { unit: "week", amount: 2 });

  const log = await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, perPage: 100 });
  const types = log.data.map((x) => x.type);
  for (const t of ["DOCUMENT_CREATED", "ENVELOPE_ITEM_CREATED", "RECIPIENT_CREATED", "FIELD_CREATED",
    "DOCUMENT_TITLE_UPDATED", "DOCUMENT_EXTERNAL_ID_UPDATED", "DOCUMENT_VISIBILITY_UPDATED", "DOCUMENT_META_UPDATED"]) {
    assert.ok(types.includes(t), `audit log lacks ${t}: ${types}`);
  }
  const title = log.data.find((x) => x.type === "DOCUMENT_TITLE_UPDATED");
  assert.deepEqual(title.data, { from: "Contrato de arriendo", to: "Contrato firmado" });
  assert.ok(title.email.endsWith("@example.com"));
  assert.ok(title.userId > 0);
  const item = log.data.find((x) => x.type === "ENVELOPE_ITEM_CREATED");
  assert.deepEqual(Object.keys(item.data).sort(), ["envelopeItemId", "envelopeItemTitle"]);

  const asc = await sdk.envelope.envelopeAuditLogFind({ envelopeId: id, orderByDirection: "asc", perPage: 1, page: 1 });
  assert.equal(asc.data[0].type, "DOCUMENT_CREATED");
  assert.equal(asc.perPage, 1);
  assert.equal(asc.count, log.count);
});

test("fields: create by coordinates and by placeholder, update while draft, get, delete", async () => {
  const sdk = client(newKey().key);
  const { id } = await createDocument(sdk);
  const e = await sdk.envelopes.get({ envelopeId: id });
  const ana = e.recipients[0];
  const created = await sdk.envelopes.fields.createMany({
    envelopeId: id,
    data: [
      { recipientId: ana.id, type: "NUMBER", page: 1, positionX: 50, positionY: 50, width: 10, height: 4,
        fieldMeta: { type: "number", minValue: 1, maxValue: 10, value: "5" } },
      { recipientId: ana.id, type: "DATE", placeholder: "{{sig}}", matchAll: true },
    ],
  });
  assert.equal(created.data.length, 3, "one coordinates field and two placeholder matches");
  const [num, date1, date2] = created.data;
  assert.equal(num.type, "NUMBER");
  assert.equal(date1.page, 1);
  assert.equal(date2.page, 2);
  assert.ok(date1.positionX > 0 && date1.positionY > 50, `placeholder box on page 1 lower half: ${JSON.stringify(date1)}`);
  assert.ok(date1.width > 0 && date1.height > 0);
  assert.equal(date1.documentId, Number(e.secondaryId.split("_")[1]));

  const updated = await sdk.envelopes.fields.updateMany({
    envelopeId: id, data: [{ id: num.id, type: "NUMBER", positionX: 60, fieldMeta: { type: "number", maxValue: 100 } }],
  });
  assert.equal(updated.data[0].positionX, 60);
  const got = await sdk.envelopes.fields.get({ fieldId: num.id });
  assert.equal(got.positionX, 60);
  assert.equal(got.fieldMeta.maxValue, 100);

  assert.deepEqual(await sdk.envelopes.fields.delete({ fieldId: num.id }), { success: true });
  await assert.rejects(sdk.envelopes.fields.get({ fieldId: num.id }), (err) => err.statusCode === 404);

  const missing = await raw("POST", "/envelope/field/create-many", { key: sdk.key,
    body: { envelopeId: id, data: [{ recipientId: ana.id, type: "TEXT", placeholder: "{{nowhere}}" }] } });
  assert.equal(missing.status, 400);
  assert.match(missing.json.issues[0].message, /not found/);

  // A VIEWER fills no fields, whether they are placed by coordinates or by placeholder.
  const viewer = await raw("POST", "/envelope/recipient/create-many", { key: sdk.key,
    body: { envelopeId: id, data: [{ email: "viewer@example.com", name: "Vera", role: "VIEWER" }] } });
  const vid = viewer.json.data[0].id;
  for (const placed of [{ placeholder: "{{sig}}" }, { page: 1, positionX: 5, positionY: 5, width: 5, height: 5 }]) {
    const r = await raw("POST", "/envelope/field/create-many", { key: sdk.key,
      body: { envelopeId: id, data: [{ recipientId: vid, type: "TEXT", ...placed }] } });
    assert.equal(r.status, 400, JSON.stringify(placed));
    assert.equal(r.json.issues[0].path, "data[0].recipientId");
  }
});

test("recipients: create, update, get with fields, delete", async () => {
  const sdk = client(newKey().key);
  const { id } = await createDocument(sdk);
  const created = await sdk.envelopes.recipients.createMany({
    envelopeId: id,
    data: [{ email: "bo@example.com", name: "Bo", role: "APPROVER", signingOrder: 2 }],
  });
  assert.equal(created.data.length, 1);
  assert.equal(created.data[0].role, "APPROVER");
  assert.equal(created.data[0].signingOrder, 2);
  // The SDK's enums predate the Chilean methods, so CLAVE_UNICA goes in raw.
  const chilean = await raw("POST", "/envelope/recipient/create-many", { key: sdk.key,
    body: { envelopeId: id, data: [{ email: "cami@example.cl", name: "Camila", role: "SIGNER", actionAuth: ["CLAVE_UNICA", "FAO_HASH"] }] } });
  assert.equal(chilean.status, 200, chilean.text);
  const rawGet = await raw("GET", `/envelope/${id}`, { key: sdk.key });
  const camila = rawGet.json.recipients.find((r) => r.name === "Camila");
  assert.deepEqual(camila.authOptions.actionAuth, ["CLAVE_UNICA", "FAO_HASH"]);

  const bo = rawGet.json.recipients.find((r) => r.name === "Bo");
  const up = await sdk.envelopes.recipients.updateMany({ envelopeId: id, data: [{ id: bo.id, name: "Bo B.", role: "SIGNER" }] });
  assert.equal(up.data[0].name, "Bo B.");
  assert.equal(up.data[0].role, "SIGNER");
  const got = await sdk.envelopes.recipients.get({ recipientId: bo.id });
  assert.equal(got.name, "Bo B.");
  assert.deepEqual(got.fields, []);
  const rawRecipient = await raw("GET", `/envelope/recipient/${bo.id}`, { key: sdk.key });
  assert.equal(rawRecipient.json.documentId, Number(rawGet.json.secondaryId.split("_")[1]), "the SPEC's documentId (the SDK strips it)");
  assert.equal(rawRecipient.json.templateId, null);

  const ana = rawGet.json.recipients.find((r) => r.name === "Ana Pérez");
  const anaRead = await sdk.envelopes.recipients.get({ recipientId: ana.id });
  assert.equal(anaRead.fields.length, 2);

  assert.deepEqual(await sdk.envelopes.recipients.delete({ recipientId: camila.id }), { success: true });
  assert.deepEqual(await sdk.envelopes.recipients.delete({ recipientId: bo.id }), { success: true });
  await assert.rejects(sdk.envelopes.recipients.get({ recipientId: bo.id }), (err) => err.statusCode === 404);
  // Camila's RECIPIENT_CREATED entry names CLAVE_UNICA, outside the SDK's enums: read it raw.
  const log = (await raw("GET", `/envelope/${id}/audit-log?perPage=100`, { key: sdk.key })).json;
  const types = log.data.map((x) => x.type);
  assert.ok(types.includes("RECIPIENT_UPDATED") && types.includes("RECIPIENT_DELETED"));
  const upd = log.data.find((x) => x.type === "RECIPIENT_UPDATED");
  assert.deepEqual(upd.data.changes.map((c) => c.type).sort(), ["NAME", "ROLE"]);
});

test("attachments: create and list", async () => {
  const sdk = client(newKey().key);
  const { id } = await createDocument(sdk);
  const { id: attId } = await sdk.envelopes.attachments.create({ envelopeId: id, data: { label: "Anexo", data: "https://example.com/anexo.pdf" } });
  const list = await sdk.envelopes.attachments.find({ envelopeId: id });
  assert.deepEqual(list.data.map((a) => a.label), ["Términos", "Anexo"]);
  assert.equal(list.data[1].id, attId);
  assert.equal(list.data[1].type, "link");
});

test("bad input is one 400 naming every bad field; nothing is written", async () => {
  const sdk = client(newKey().key);
  const res = await raw("POST", "/envelope/create", {
    key: sdk.key,
    body: (() => {
      const fd = new FormData();
      fd.append("payload", JSON.stringify({
        title: "", type: "CONTRACT",
        recipients: [{ email: "not-an-email", name: "x".repeat(256), role: "BOSS",
          fields: [{ type: "TEXT", page: 0, positionX: 101, positionY: 1, width: 1, height: 1, fieldMeta: { type: "text", fontSize: 200 } }] }],
        meta: { subject: "s".repeat(255), language: "fr", dateFormat: "yyyy", envelopeExpirationPeriod: { unit: "day", amount: 0 } },
      }));
      fd.append("files", new Blob([contract()], { type: "application/pdf" }), "a.pdf");
      return fd;
    })(),
  });
  assert.equal(res.status, 400);
  assert.equal(res.json.code, "INVALID_BODY");
  const paths = res.json.issues.map((i) => i.path);
  for (const p of ["title", "type", "recipients[0].email", "recipients[0].name", "recipients[0].role",
    "recipients[0].fields[0].page", "recipients[0].fields[0].positionX", "recipients[0].fields[0].fieldMeta.fontSize",
    "meta.subject", "meta.language", "meta.dateFormat", "meta.envelopeExpirationPeriod.amount"]) {
    assert.ok(paths.includes(p), `issues do not name ${p}: ${paths}`);
  }
  assert.equal((await sdk.envelope.envelopeFind({})).count, 0);

  for (const body of ["not multipart", JSON.stringify({ title: "x" })]) {
    const r = await raw("POST", "/envelope/create", { key: sdk.key, body: JSON.parse(JSON.stringify(body)) });
    assert.equal(r.status, 400);
  }
  const notPDF = new FormData();
  notPDF.append("payload", JSON.stringify({ title: "x", type: "DOCUMENT" }));
  notPDF.append("files", new Blob(["hello"]), "a.pdf");
  const r = await raw("POST", "/envelope/create", { key: sdk.key, body: notPDF });
  assert.equal(r.status, 400);
  assert.equal(r.json.issues[0].path, "files[0]");
  const badJSON = new FormData();
  badJSON.append("payload", "{not json");
  const j = await raw("POST", "/envelope/create", { key: sdk.key, body: badJSON });
  assert.equal(j.status, 400);
  assert.equal(j.json.code, "INVALID_BODY");
});

test("another team sees 404 for every id and an empty search", async () => {
  const owner = client(newKey().key);
  const { id } = await createDocument(owner);
  const e = await owner.envelopes.get({ envelopeId: id });
  const stranger = newKey().key;
  const fieldId = e.fields[0].id;
  const recipientId = e.recipients[0].id;
  const calls = [
    ["GET", `/envelope/${id}`],
    ["GET", `/envelope/${id}/audit-log`],
    ["GET", `/envelope/field/${fieldId}`],
    ["GET", `/envelope/recipient/${recipientId}`],
    ["GET", `/envelope/attachment?envelopeId=${id}`],
    ["POST", "/envelope/update", { envelopeId: id, data: { title: "mine" } }],
    ["POST", "/envelope/field/create-many", { envelopeId: id, data: [{ recipientId, type: "TEXT", page: 1, positionX: 1, positionY: 1, width: 1, height: 1 }] }],
    ["POST", "/envelope/field/update-many", { envelopeId: id, data: [{ id: fieldId, type: "SIGNATURE", positionX: 2 }] }],
    ["POST", "/envelope/field/delete", { fieldId }],
    ["POST", "/envelope/recipient/create-many", { envelopeId: id, data: [{ email: "x@example.com", name: "X", role: "SIGNER" }] }],
    ["POST", "/envelope/recipient/update-many", { envelopeId: id, data: [{ id: recipientId, name: "X" }] }],
    ["POST", "/envelope/recipient/delete", { recipientId }],
    ["POST", "/envelope/attachment/create", { envelopeId: id, data: { label: "x", data: "https://x.example" } }],
  ];
  for (const [method, path, body] of calls) {
    const res = await raw(method, path, { key: stranger, body });
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    assert.equal(res.json.code, "NOT_FOUND");
  }
  const many = await raw("POST", "/envelope/get-many", { key: stranger, body: { ids: { type: "envelopeId", ids: [id] } } });
  assert.deepEqual(many.json.data, []);
  assert.equal((await client(stranger).envelope.envelopeFind({ query: "Contrato" })).count, 0);
  const after = await owner.envelopes.get({ envelopeId: id });
  assert.deepEqual(after, e, "nothing changed");
});

test("visibility follows the team role", async () => {
  const team = `vis-${Date.now()}`;
  const admin = newKey({ team, email: `admin-${Date.now()}@example.com`, role: "ADMIN" });
  const manager = newKey({ team, email: `manager-${Date.now()}@example.com`, role: "MANAGER" });
  const memberKey = newKey({ team, email: `member-${Date.now()}@example.com`, role: "MEMBER" });
  const sdk = client(admin.key);
  const ids = {};
  for (const v of ["EVERYONE", "MANAGER_AND_ABOVE", "ADMIN"]) {
    ids[v] = (await createDocument(sdk, { visibility: v, title: v })).id;
  }
  const sees = async (key) => (await client(key).envelope.envelopeFind({})).data.map((e) => e.title).sort();
  assert.deepEqual(await sees(admin.key), ["ADMIN", "EVERYONE", "MANAGER_AND_ABOVE"]);
  assert.deepEqual(await sees(manager.key), ["EVERYONE", "MANAGER_AND_ABOVE"]);
  assert.deepEqual(await sees(memberKey.key), ["EVERYONE"]);
  const hidden = await raw("GET", `/envelope/${ids.ADMIN}`, { key: memberKey.key });
  assert.equal(hidden.status, 404);

  const forbidden = await raw("POST", "/envelope/update", { key: memberKey.key, body: { envelopeId: ids.EVERYONE, data: { visibility: "ADMIN" } } });
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.json.code, "FORBIDDEN");
});
