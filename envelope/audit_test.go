package envelope

import (
	"encoding/json"
	"testing"
	"time"
)

// The expected bytes are those the entries had when each was built inline where it was written;
// the audit chain's hashes, the audit log and the audit PDF rest on them.
func TestAuditShapes(t *testing.T) {
	rut := "12345678-5"
	r := Recipient{ID: 7, EnvelopeID: "envelope_1", Email: "ana@example.cl", Name: "Ana <b>&", Role: RoleSigner, Token: "secret",
		AuthOptions: RecipientAuthOptions{AccessAuth: []AccessAuth{"ACCOUNT"}, ActionAuth: []ActionAuth{"PASSKEY"}}, ExpectedRUT: &rut}
	r2 := Recipient{ID: 8, EnvelopeID: "envelope_1", Email: "bea@example.cl", Name: "Bea", Role: RoleApprover}
	f := Field{ID: 11, SecondaryID: "cfield1", EnvelopeItemID: "item_1", Type: FieldText, RecipientID: 7, Page: 1, PositionX: 10.5, PositionY: 20, Width: 30, Height: 5, CustomText: "hola"}
	f2 := f
	f2.Type, f2.Page, f2.Width, f2.EnvelopeItemID = FieldNumber, 2, 31, "item_2"
	signature := f
	signature.Type = FieldSignature
	rutField := f
	rutField.Type = FieldRUTFirmado
	tpl := int64(42)
	it := Item{ID: "item_1", Title: "Anexo & co"}
	at := time.Date(2025, 3, 4, 5, 6, 7, 800, time.UTC)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	full := Completion{ActionAuth: []string{"PASSKEY"}, Documents: []ShownDocument{{EnvelopeItemID: "item_1", SHA256: "ff00"}},
		Identity: ProvenIdentity{ClaveUnicaRUN: "12345678-5", ClaveUnicaName: "ANA PÉREZ", ClaveUnicaAt: &at,
			FEARUT: "12345678-5", FEASubject: "CN=Ana", FEAIssuer: "CN=CA", FEASerial: "0A", FEADigest: "abc", FEAAt: &at, FEARevocation: "good",
			AccountID: 3, AccountEmail: "ana@example.cl", PasswordAt: &at, TOTPAt: &at, PasskeyAt: &at, PasskeyCredentialID: "cred-1"}}
	asis := Recipient{ID: 5, EnvelopeID: "envelope_1", Email: "asis@example.cl", Name: "Asistente", Role: RoleAssistant, Token: "secret"}
	assisted := Completion{ActionAuth: []string{}, Prefilled: []PrefilledField{PrefilledFor(f, r)}}
	updated := r2
	updated.Email, updated.Name = "new@example.cl", "Nueva"
	recipientChanges := []AuditChange{{Type: "EMAIL", From: r.Email, To: "x@example.cl"}, {Type: "ROLE", From: r.Role, To: "VIEWER"},
		{Type: "ACCESS_AUTH", From: r.AuthOptions.AccessAuth, To: []AccessAuth{}}, {Type: "EXPECTED_RUT", From: r.ExpectedRUT, To: (*string)(nil)}}
	metaChanges := MetaAuditChanges([]MetaChange{{Type: "subject", From: nil, To: "Hola"}, {Type: "language", From: "es", To: "en"},
		{Type: "emailSettings", From: map[string]bool{"a": true}, To: nil}, {Type: "redirectUrl", From: "https://a.cl/?x=<1>", To: ""}})
	cases := []struct {
		name string
		got  Audit
		typ  AuditType
		want string
	}{
		{"created", DocumentCreatedAudit("Contrato <1>", SourceDocument, nil), "DOCUMENT_CREATED", `{"source":{"type":"DOCUMENT"},"title":"Contrato \u003c1\u003e"}`},
		{"created from a template", DocumentCreatedAudit("Contrato", SourceTemplate, &tpl), "DOCUMENT_CREATED", `{"source":{"templateId":42,"type":"TEMPLATE"},"title":"Contrato"}`},
		{"delegated owner", DelegatedOwnerCreatedAudit(Member{TeamName: "Equipo", UserEmail: "owner@example.cl", UserName: "Dueña"}), "DOCUMENT_DELEGATED_OWNER_CREATED", `{"delegatedOwnerEmail":"owner@example.cl","delegatedOwnerName":"Dueña","teamName":"Equipo"}`},
		{"title", TitleUpdatedAudit("A", "B <c>"), "DOCUMENT_TITLE_UPDATED", `{"from":"A","to":"B \u003cc\u003e"}`},
		{"external id", ExternalIDUpdatedAudit("", "x-1"), "DOCUMENT_EXTERNAL_ID_UPDATED", `{"from":"","to":"x-1"}`},
		{"visibility", VisibilityUpdatedAudit(VisibilityEveryone, VisibilityAdmin), "DOCUMENT_VISIBILITY_UPDATED", `{"from":"EVERYONE","to":"ADMIN"}`},
		{"global access", GlobalAccessAuthUpdatedAudit(nil, []AccessAuth{"ACCOUNT"}), "DOCUMENT_GLOBAL_AUTH_ACCESS_UPDATED", `{"from":null,"to":["ACCOUNT"]}`},
		{"global action", GlobalActionAuthUpdatedAudit([]ActionAuth{"PASSKEY"}, []ActionAuth{}), "DOCUMENT_GLOBAL_AUTH_ACTION_UPDATED", `{"from":["PASSKEY"],"to":[]}`},
		{"meta", MetaUpdatedAudit(metaChanges), "DOCUMENT_META_UPDATED", `{"changes":[{"from":null,"to":"Hola","type":"SUBJECT"},{"from":"{\"a\":true}","to":null,"type":"EMAIL_SETTINGS"},{"from":"https://a.cl/?x=\u003c1\u003e","to":"","type":"REDIRECT_URL"}]}`},
		{"item created", ItemCreatedAudit(it), "ENVELOPE_ITEM_CREATED", `{"envelopeItemId":"item_1","envelopeItemTitle":"Anexo \u0026 co"}`},
		{"item updated", ItemUpdatedAudit("item_1", []ItemChange{{Field: "title", From: "A", To: "B"}, {Field: "order", From: "1", To: "2"}}), "ENVELOPE_ITEM_UPDATED", `{"changes":[{"field":"title","from":"A","to":"B"},{"field":"order","from":"1","to":"2"}],"envelopeItemId":"item_1"}`},
		{"item deleted", ItemDeletedAudit(it), "ENVELOPE_ITEM_DELETED", `{"envelopeItemId":"item_1","envelopeItemTitle":"Anexo \u0026 co"}`},
		{"recipient created", RecipientCreatedAudit(r), "RECIPIENT_CREATED", `{"accessAuth":["ACCOUNT"],"actionAuth":["PASSKEY"],"expectedRut":"12345678-5","recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"recipient created without auth", RecipientCreatedAudit(r2), "RECIPIENT_CREATED", `{"accessAuth":null,"actionAuth":null,"recipientEmail":"bea@example.cl","recipientId":8,"recipientName":"Bea","recipientRole":"APPROVER"}`},
		{"recipient updated", RecipientUpdatedAudit(r, recipientChanges, false), "RECIPIENT_UPDATED", `{"changes":[{"from":"ana@example.cl","to":"x@example.cl","type":"EMAIL"},{"from":"SIGNER","to":"VIEWER","type":"ROLE"},{"from":["ACCOUNT"],"to":[],"type":"ACCESS_AUTH"},{"from":"12345678-5","to":null,"type":"EXPECTED_RUT"}],"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"recipient updated, link replaced", RecipientUpdatedAudit(r, recipientChanges, true), "RECIPIENT_UPDATED", `{"changes":[{"from":"ana@example.cl","to":"x@example.cl","type":"EMAIL"},{"from":"SIGNER","to":"VIEWER","type":"ROLE"},{"from":["ACCOUNT"],"to":[],"type":"ACCESS_AUTH"},{"from":"12345678-5","to":null,"type":"EXPECTED_RUT"}],"linkReplaced":true,"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"next signer dictated", RecipientUpdatedAudit(updated, []AuditChange{{Type: "EMAIL", From: r2.Email, To: updated.Email}, {Type: "NAME", From: r2.Name, To: updated.Name}}, true), "RECIPIENT_UPDATED", `{"changes":[{"from":"bea@example.cl","to":"new@example.cl","type":"EMAIL"},{"from":"Bea","to":"Nueva","type":"NAME"}],"linkReplaced":true,"recipientEmail":"new@example.cl","recipientId":8,"recipientName":"Nueva","recipientRole":"APPROVER"}`},
		{"recipient deleted", RecipientDeletedAudit(r), "RECIPIENT_DELETED", `{"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"field created", FieldCreatedAudit(f, r), "FIELD_CREATED", `{"fieldId":"cfield1","fieldRecipientEmail":"ana@example.cl","fieldRecipientId":7,"fieldType":"TEXT"}`},
		{"field updated", FieldUpdatedAudit(f, f2, r), "FIELD_UPDATED", `{"changes":[{"from":"TEXT","to":"NUMBER","type":"TYPE"},{"from":{"page":1,"positionX":10.5,"positionY":20},"to":{"page":2,"positionX":10.5,"positionY":20},"type":"POSITION"},{"from":{"height":5,"width":30},"to":{"height":5,"width":31},"type":"DIMENSION"},{"from":"item_1","to":"item_2","type":"ENVELOPE_ITEM"}],"fieldId":"cfield1","fieldRecipientEmail":"ana@example.cl","fieldRecipientId":7,"fieldType":"NUMBER"}`},
		{"field updated, nothing moved", FieldUpdatedAudit(f, f, r), "FIELD_UPDATED", `{"changes":null,"fieldId":"cfield1","fieldRecipientEmail":"ana@example.cl","fieldRecipientId":7,"fieldType":"TEXT"}`},
		{"field deleted", FieldDeletedAudit(f, r), "FIELD_DELETED", `{"fieldId":"cfield1","fieldRecipientEmail":"ana@example.cl","fieldRecipientId":7,"fieldType":"TEXT"}`},
		{"viewed", ViewedAudit(r), "DOCUMENT_VIEWED", `{"accessAuth":["ACCOUNT"],"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"field uninserted", FieldUninsertedAudit(f), "DOCUMENT_FIELD_UNINSERTED", `{"field":"TEXT","fieldId":"cfield1"}`},
		{"fields auto-inserted", FieldsAutoInsertedAudit([]Field{f, f2}), "DOCUMENT_FIELDS_AUTO_INSERTED", `{"fields":[{"fieldId":11,"fieldType":"TEXT","recipientId":7},{"fieldId":11,"fieldType":"NUMBER","recipientId":7}]}`},
		{"code requested", AccessCodeRequestedAudit(r), "DOCUMENT_ACCESS_AUTH_2FA_REQUESTED", `{"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026"}`},
		{"code validated", AccessCodeValidatedAudit(r), "DOCUMENT_ACCESS_AUTH_2FA_VALIDATED", `{"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026"}`},
		{"code failed", AccessCodeFailedAudit(r), "DOCUMENT_ACCESS_AUTH_2FA_FAILED", `{"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026"}`},
		{"code locked", AccessCodeLockedAudit(r, 6), "DOCUMENT_ACCESS_AUTH_2FA_LOCKED", `{"failures":6,"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026"}`},
		{"account proof failed", RecipientAuthFailedAudit(r, ActionAuthPassword, true), "DOCUMENT_RECIPIENT_AUTH_FAILED", `{"accountLocked":true,"method":"PASSWORD","recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026"}`},
		{"identity refused", IdentityRefusedAudit(r, ActionAuthClaveUnica, "11111111-1"), "RECIPIENT_IDENTITY_REFUSED", `{"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER","run":"11111111-1","via":"CLAVE_UNICA"}`},
		// Events.
		{"sent", SentEvent("envelope_1", now).Audit(), "DOCUMENT_SENT", `{}`},
		{"mailed", MailedEvent(r, "SIGNING_REQUEST", false, now).Audit(), "EMAIL_SENT", `{"emailType":"SIGNING_REQUEST","isResending":false,"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"reminder", MailedEvent(r, EmailTypeReminder, true, now).Audit(), "EMAIL_SENT", `{"emailType":"REMINDER","isResending":true,"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"refused", MailRefusedEvent(r.EnvelopeID, &r, "SIGNING_REQUEST", false, "550 5.1.1 no such mailbox", now).Audit(), "EMAIL_REFUSED", `{"emailType":"SIGNING_REQUEST","error":"550 5.1.1 no such mailbox","isResending":false,"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"refused, to the owner", MailRefusedEvent(r.EnvelopeID, nil, "owner_completed", false, "554 refused", now).Audit(), "EMAIL_REFUSED", `{"emailType":"owner_completed","error":"554 refused","isResending":false}`},
		{"opened", OpenedEvent(r, now).Audit(), "DOCUMENT_OPENED", `{"accessAuth":["ACCOUNT"],"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"opened without auth", OpenedEvent(r2, now).Audit(), "DOCUMENT_OPENED", `{"accessAuth":null,"recipientEmail":"bea@example.cl","recipientId":8,"recipientName":"Bea","recipientRole":"APPROVER"}`},
		{"field inserted", FieldInsertedEvent(r, f, f.CustomText, now).Audit(), "DOCUMENT_FIELD_INSERTED", `{"field":{"data":"hola","type":"TEXT"},"fieldId":"cfield1","recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"signature inserted", FieldInsertedEvent(r, signature, "", now).Audit(), "DOCUMENT_FIELD_INSERTED", `{"field":{"data":"","type":"SIGNATURE"},"fieldId":"cfield1","recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"RUT_FIRMADO inserted", FieldInsertedEvent(r, rutField, "12345678-5", now).Audit(), "DOCUMENT_FIELD_INSERTED", `{"field":{"data":"12345678-5","type":"RUT_FIRMADO"},"fieldId":"cfield1","recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"recipient completed", RecipientCompletedEvent(r, full, true, now).Audit(), "DOCUMENT_RECIPIENT_COMPLETED", `{"actionAuth":["PASSKEY"],"documents":[{"envelopeItemId":"item_1","sha256":"ff00"}],"identity":{"certificate":{"digest":"abc","issuer":"CN=CA","revocation":"good","rut":"12345678-5","serialNumber":"0A","subject":"CN=Ana","verifiedAt":"2025-03-04T05:06:07.0000008Z"},"claveUnica":{"name":"ANA PÉREZ","run":"12345678-5","verifiedAt":"2025-03-04T05:06:07.0000008Z"}},"proofs":[{"accountEmail":"ana@example.cl","accountId":3,"at":null,"method":"ACCOUNT"},{"accountEmail":"ana@example.cl","accountId":3,"at":"2025-03-04T05:06:07.0000008Z","method":"PASSWORD"},{"accountEmail":"ana@example.cl","accountId":3,"at":"2025-03-04T05:06:07.0000008Z","method":"TWO_FACTOR_AUTH"},{"accountEmail":"ana@example.cl","accountId":3,"at":"2025-03-04T05:06:07.0000008Z","credentialId":"cred-1","method":"PASSKEY"},{"at":"2025-03-04T05:06:07.0000008Z","method":"CLAVE_UNICA","run":"12345678-5"},{"at":"2025-03-04T05:06:07.0000008Z","method":"FAO_HASH","rut":"12345678-5","serialNumber":"0A"}],"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"recipient completed, nothing proved", RecipientCompletedEvent(r2, Completion{ActionAuth: []string{}}, false, now).Audit(), "DOCUMENT_RECIPIENT_COMPLETED", `{"actionAuth":[],"documents":null,"recipientEmail":"bea@example.cl","recipientId":8,"recipientName":"Bea","recipientRole":"APPROVER"}`},
		{"field prefilled by an assistant", FieldPrefilledAudit(asis, r, f, "hola"), "DOCUMENT_FIELD_PREFILLED", `{"field":{"data":"hola","type":"TEXT"},"fieldId":"cfield1","fieldRecipientEmail":"ana@example.cl","fieldRecipientId":7,"fieldRecipientName":"Ana \u003cb\u003e\u0026","recipientEmail":"asis@example.cl","recipientId":5,"recipientName":"Asistente","recipientRole":"ASSISTANT"}`},
		{"assistant completed", RecipientCompletedEvent(asis, assisted, false, now).Audit(), "DOCUMENT_RECIPIENT_COMPLETED", `{"actionAuth":[],"documents":null,"prefilled":[{"fieldId":"cfield1","fieldType":"TEXT","recipientId":7,"recipientEmail":"ana@example.cl","recipientName":"Ana \u003cb\u003e\u0026"}],"recipientEmail":"asis@example.cl","recipientId":5,"recipientName":"Asistente","recipientRole":"ASSISTANT"}`},
		{"rejected", RecipientRejectedEvent(r, "No <quiero>", Rejection{}, now).Audit(), "DOCUMENT_RECIPIENT_REJECTED", `{"reason":"No \u003cquiero\u003e","recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"rejected through the API", RecipientRejectedEvent(r, "por API", Rejection{External: true, OnBehalfOf: &Person{Name: "Jefe", Email: "jefe@example.cl"}}, now).Audit(), "DOCUMENT_RECIPIENT_REJECTED", `{"isExternal":true,"onBehalfOfUserEmail":"jefe@example.cl","onBehalfOfUserName":"Jefe","reason":"por API","recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026","recipientRole":"SIGNER"}`},
		{"expired", RecipientExpiredEvent(r, now).Audit(), "DOCUMENT_RECIPIENT_EXPIRED", `{"recipientEmail":"ana@example.cl","recipientId":7,"recipientName":"Ana \u003cb\u003e\u0026"}`},
		{"completed", CompletedEvent("envelope_1", "run-1", now).Audit(), "DOCUMENT_COMPLETED", `{"transactionId":"run-1"}`},
		{"ended by a rejection", RejectedEvent("envelope_1", "run-1", 7, "No <quiero>", now).Audit(), "DOCUMENT_COMPLETED", `{"isRejected":true,"rejectionReason":"No \u003cquiero\u003e","transactionId":"run-1"}`},
		{"cancelled", CancelledEvent("envelope_1", "ya no", now).Audit(), "DOCUMENT_CANCELLED", `{"reason":"ya no"}`},
		{"deleted", DeletedEvent("envelope_1", now).Audit(), "DOCUMENT_DELETED", `{"type":"SOFT"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got.Type != c.typ {
				t.Errorf("type = %s, want %s", c.got.Type, c.typ)
			}
			b, err := json.Marshal(c.got.Data)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != c.want {
				t.Errorf("data =\n%s\nwant\n%s", b, c.want)
			}
		})
	}
}
