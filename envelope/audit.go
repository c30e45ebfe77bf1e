package envelope

import "slices"

// AuditType names an audit entry, as Documenso's audit log does.
type AuditType string

// Audit entry types. The data each one carries is written by its constructor below.
const (
	AuditDocumentCreated          = AuditType("DOCUMENT_CREATED")
	AuditDelegatedOwnerCreated    = AuditType("DOCUMENT_DELEGATED_OWNER_CREATED")
	AuditTitleUpdated             = AuditType("DOCUMENT_TITLE_UPDATED")
	AuditExternalIDUpdated        = AuditType("DOCUMENT_EXTERNAL_ID_UPDATED")
	AuditVisibilityUpdated        = AuditType("DOCUMENT_VISIBILITY_UPDATED")
	AuditGlobalAccessAuthUpdated  = AuditType("DOCUMENT_GLOBAL_AUTH_ACCESS_UPDATED")
	AuditGlobalActionAuthUpdated  = AuditType("DOCUMENT_GLOBAL_AUTH_ACTION_UPDATED")
	AuditMetaUpdated              = AuditType("DOCUMENT_META_UPDATED")
	AuditItemCreated              = AuditType("ENVELOPE_ITEM_CREATED")
	AuditItemUpdated              = AuditType("ENVELOPE_ITEM_UPDATED")
	AuditItemDeleted              = AuditType("ENVELOPE_ITEM_DELETED")
	AuditRecipientCreated         = AuditType("RECIPIENT_CREATED")
	AuditRecipientUpdated         = AuditType("RECIPIENT_UPDATED")
	AuditRecipientDeleted         = AuditType("RECIPIENT_DELETED")
	AuditFieldCreated             = AuditType("FIELD_CREATED")
	AuditFieldUpdated             = AuditType("FIELD_UPDATED")
	AuditFieldDeleted             = AuditType("FIELD_DELETED")
	AuditSent                     = AuditType("DOCUMENT_SENT")
	AuditEmailSent                = AuditType("EMAIL_SENT")
	AuditEmailRefused             = AuditType("EMAIL_REFUSED") // beyond Documenso: the relay refused a mail for good
	AuditOpened                   = AuditType("DOCUMENT_OPENED")
	AuditViewed                   = AuditType("DOCUMENT_VIEWED")
	AuditFieldInserted            = AuditType("DOCUMENT_FIELD_INSERTED")
	AuditFieldUninserted          = AuditType("DOCUMENT_FIELD_UNINSERTED")
	AuditFieldPrefilled           = AuditType("DOCUMENT_FIELD_PREFILLED")
	AuditFieldsAutoInserted       = AuditType("DOCUMENT_FIELDS_AUTO_INSERTED")
	AuditRecipientCompleted       = AuditType("DOCUMENT_RECIPIENT_COMPLETED")
	AuditRecipientRejected        = AuditType("DOCUMENT_RECIPIENT_REJECTED")
	AuditRecipientExpired         = AuditType("DOCUMENT_RECIPIENT_EXPIRED")
	AuditCompleted                = AuditType("DOCUMENT_COMPLETED")
	AuditCancelled                = AuditType("DOCUMENT_CANCELLED")
	AuditDeleted                  = AuditType("DOCUMENT_DELETED")
	AuditAccessCodeRequested      = AuditType("DOCUMENT_ACCESS_AUTH_2FA_REQUESTED")
	AuditAccessCodeValidated      = AuditType("DOCUMENT_ACCESS_AUTH_2FA_VALIDATED")
	AuditAccessCodeFailed         = AuditType("DOCUMENT_ACCESS_AUTH_2FA_FAILED")
	AuditAccessCodeLocked         = AuditType("DOCUMENT_ACCESS_AUTH_2FA_LOCKED")
	AuditRecipientAuthFailed      = AuditType("DOCUMENT_RECIPIENT_AUTH_FAILED")
	AuditRecipientIdentityRefused = AuditType("RECIPIENT_IDENTITY_REFUSED")
)

// Extension reports whether t is Sobre's own, not one of Documenso's types. Documenso's clients
// read the audit log as a union of Documenso's types and refuse a page holding any other (the
// official SDK fails to parse it), so the API lists these only when asked
// (includeExtensions=true); the audit trail PDF and the hash chain hold them all.
func (t AuditType) Extension() bool { return slices.Contains(ExtensionAuditTypes(), t) }

// ExtensionAuditTypes lists the types for which Extension is true.
func ExtensionAuditTypes() []AuditType {
	return []AuditType{AuditAccessCodeLocked, AuditRecipientAuthFailed, AuditRecipientIdentityRefused, AuditEmailRefused}
}

// Audit is one entry to write to an envelope's audit log: its type and its data, which is
// stored as its JSON encoding. The data's bytes are part of the entry's chained hash and of what
// the audit log and the audit PDF show, so each shape is built here, by its constructor, and
// nowhere else.
type Audit struct {
	Type AuditType
	Data any
}

// AuditChange is one {type, from, to} member of an entry's changes (RECIPIENT_UPDATED,
// FIELD_UPDATED, DOCUMENT_META_UPDATED). Its fields are in the order of their JSON names, as an
// encoded map's keys would be.
type AuditChange struct {
	From any    `json:"from"`
	To   any    `json:"to"`
	Type string `json:"type"`
}

// ItemChange is one {field, from, to} member of ENVELOPE_ITEM_UPDATED's changes: field is
// "title" or "order", from and to as strings.
type ItemChange struct {
	Field string `json:"field"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// recipientData is Documenso's shape R: who a recipient is.
func recipientData(r Recipient) map[string]any {
	return map[string]any{"recipientEmail": r.Email, "recipientName": r.Name, "recipientId": r.ID, "recipientRole": r.Role}
}

// accessData is R without the role: the recipient of an access check or an expiry.
func accessData(r Recipient) map[string]any {
	return map[string]any{"recipientEmail": r.Email, "recipientName": r.Name, "recipientId": r.ID}
}

// fieldData is Documenso's shape F: which field, for whom.
func fieldData(f Field, r Recipient) map[string]any {
	return map[string]any{"fieldId": f.SecondaryID, "fieldRecipientEmail": r.Email, "fieldRecipientId": r.ID, "fieldType": f.Type}
}

// fromTo is the {from, to} of a changed envelope property.
func fromTo(from, to any) map[string]any { return map[string]any{"from": from, "to": to} }

// with adds the members of extra to m and returns m.
func with(m map[string]any, extra map[string]any) map[string]any {
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// DocumentCreatedAudit is DOCUMENT_CREATED {title, source: {type, templateId?}}: templateID is
// the template the envelope was made from, nil for none.
func DocumentCreatedAudit(title string, source Source, templateID *int64) Audit {
	src := map[string]any{"type": source}
	if templateID != nil {
		src["templateId"] = *templateID
	}
	return Audit{AuditDocumentCreated, map[string]any{"title": title, "source": src}}
}

// DelegatedOwnerCreatedAudit is DOCUMENT_DELEGATED_OWNER_CREATED: the team member owner an
// envelope was created for by someone else.
func DelegatedOwnerCreatedAudit(owner Member) Audit {
	return Audit{AuditDelegatedOwnerCreated, map[string]any{
		"delegatedOwnerEmail": owner.UserEmail, "delegatedOwnerName": owner.UserName, "teamName": owner.TeamName}}
}

// TitleUpdatedAudit is DOCUMENT_TITLE_UPDATED {from, to}.
func TitleUpdatedAudit(from, to string) Audit { return Audit{AuditTitleUpdated, fromTo(from, to)} }

// ExternalIDUpdatedAudit is DOCUMENT_EXTERNAL_ID_UPDATED {from, to}, "" for none.
func ExternalIDUpdatedAudit(from, to string) Audit {
	return Audit{AuditExternalIDUpdated, fromTo(from, to)}
}

// VisibilityUpdatedAudit is DOCUMENT_VISIBILITY_UPDATED {from, to}.
func VisibilityUpdatedAudit(from, to Visibility) Audit {
	return Audit{AuditVisibilityUpdated, fromTo(from, to)}
}

// GlobalAccessAuthUpdatedAudit is DOCUMENT_GLOBAL_AUTH_ACCESS_UPDATED {from, to}.
func GlobalAccessAuthUpdatedAudit(from, to []AccessAuth) Audit {
	return Audit{AuditGlobalAccessAuthUpdated, fromTo(from, to)}
}

// GlobalActionAuthUpdatedAudit is DOCUMENT_GLOBAL_AUTH_ACTION_UPDATED {from, to}.
func GlobalActionAuthUpdatedAudit(from, to []ActionAuth) Audit {
	return Audit{AuditGlobalActionAuthUpdated, fromTo(from, to)}
}

// MetaUpdatedAudit is DOCUMENT_META_UPDATED {changes}, changes as MetaAuditChanges lists them.
func MetaUpdatedAudit(changes []AuditChange) Audit {
	return Audit{AuditMetaUpdated, map[string]any{"changes": changes}}
}

// ItemCreatedAudit is ENVELOPE_ITEM_CREATED {envelopeItemId, envelopeItemTitle}.
func ItemCreatedAudit(it Item) Audit {
	return Audit{AuditItemCreated, map[string]any{"envelopeItemId": it.ID, "envelopeItemTitle": it.Title}}
}

// ItemUpdatedAudit is ENVELOPE_ITEM_UPDATED {envelopeItemId, changes}.
func ItemUpdatedAudit(itemID string, changes []ItemChange) Audit {
	return Audit{AuditItemUpdated, map[string]any{"envelopeItemId": itemID, "changes": changes}}
}

// ItemDeletedAudit is ENVELOPE_ITEM_DELETED {envelopeItemId, envelopeItemTitle}.
func ItemDeletedAudit(it Item) Audit {
	return Audit{AuditItemDeleted, map[string]any{"envelopeItemId": it.ID, "envelopeItemTitle": it.Title}}
}

// RecipientCreatedAudit is RECIPIENT_CREATED: R with its accessAuth and actionAuth, and
// expectedRut when the recipient has one.
func RecipientCreatedAudit(r Recipient) Audit {
	data := with(recipientData(r), map[string]any{"accessAuth": r.AuthOptions.AccessAuth, "actionAuth": r.AuthOptions.ActionAuth})
	if r.ExpectedRUT != nil {
		data["expectedRut"] = *r.ExpectedRUT
	}
	return Audit{AuditRecipientCreated, data}
}

// RecipientUpdatedAudit is RECIPIENT_UPDATED: R of the recipient as changed, with its changes,
// and linkReplaced when the change replaced its signing link.
func RecipientUpdatedAudit(r Recipient, changes []AuditChange, linkReplaced bool) Audit {
	data := with(recipientData(r), map[string]any{"changes": changes})
	if linkReplaced {
		data["linkReplaced"] = true
	}
	return Audit{AuditRecipientUpdated, data}
}

// RecipientDeletedAudit is RECIPIENT_DELETED: R.
func RecipientDeletedAudit(r Recipient) Audit { return Audit{AuditRecipientDeleted, recipientData(r)} }

// FieldCreatedAudit is FIELD_CREATED: F of field f of recipient r.
func FieldCreatedAudit(f Field, r Recipient) Audit { return Audit{AuditFieldCreated, fieldData(f, r)} }

// FieldUpdatedAudit is FIELD_UPDATED: F of the field as changed (after), with what changed since
// before (FieldChanges).
func FieldUpdatedAudit(before, after Field, r Recipient) Audit {
	return Audit{AuditFieldUpdated, with(fieldData(after, r), map[string]any{"changes": FieldChanges(before, after)})}
}

// FieldDeletedAudit is FIELD_DELETED: F.
func FieldDeletedAudit(f Field, r Recipient) Audit { return Audit{AuditFieldDeleted, fieldData(f, r)} }

// ViewedAudit is DOCUMENT_VIEWED: R with the recipient's accessAuth.
func ViewedAudit(r Recipient) Audit { return Audit{AuditViewed, openedData(r)} }

// openedData is what DOCUMENT_OPENED and DOCUMENT_VIEWED record.
func openedData(r Recipient) map[string]any {
	return with(recipientData(r), map[string]any{"accessAuth": r.AuthOptions.AccessAuth})
}

// FieldUninsertedAudit is DOCUMENT_FIELD_UNINSERTED {field (its type), fieldId}.
func FieldUninsertedAudit(f Field) Audit {
	return Audit{AuditFieldUninserted, map[string]any{"field": f.Type, "fieldId": f.SecondaryID}}
}

// autoInsertedField is one member of DOCUMENT_FIELDS_AUTO_INSERTED's fields.
type autoInsertedField struct {
	FieldID     int64     `json:"fieldId"`
	FieldType   FieldType `json:"fieldType"`
	RecipientID int64     `json:"recipientId"`
}

// FieldsAutoInsertedAudit is DOCUMENT_FIELDS_AUTO_INSERTED {fields: [{fieldId, fieldType,
// recipientId}]}: the fields Sobre filled by itself (their numeric ids).
func FieldsAutoInsertedAudit(fields []Field) Audit {
	var list []autoInsertedField
	for _, f := range fields {
		list = append(list, autoInsertedField{FieldID: f.ID, FieldType: f.Type, RecipientID: f.RecipientID})
	}
	return Audit{AuditFieldsAutoInserted, map[string]any{"fields": list}}
}

// AccessCodeRequestedAudit is DOCUMENT_ACCESS_AUTH_2FA_REQUESTED: R without the role.
func AccessCodeRequestedAudit(r Recipient) Audit {
	return Audit{AuditAccessCodeRequested, accessData(r)}
}

// AccessCodeValidatedAudit is DOCUMENT_ACCESS_AUTH_2FA_VALIDATED: R without the role.
func AccessCodeValidatedAudit(r Recipient) Audit {
	return Audit{AuditAccessCodeValidated, accessData(r)}
}

// AccessCodeFailedAudit is DOCUMENT_ACCESS_AUTH_2FA_FAILED: R without the role.
func AccessCodeFailedAudit(r Recipient) Audit { return Audit{AuditAccessCodeFailed, accessData(r)} }

// AccessCodeLockedAudit is DOCUMENT_ACCESS_AUTH_2FA_LOCKED: R without the role, with the
// count of failures that locked the code entry.
func AccessCodeLockedAudit(r Recipient, failures int) Audit {
	return Audit{AuditAccessCodeLocked, with(accessData(r), map[string]any{"failures": failures})}
}

// RecipientAuthFailedAudit is DOCUMENT_RECIPIENT_AUTH_FAILED: R without the role, the account
// method whose proof was wrong, and whether it locked the account.
func RecipientAuthFailedAudit(r Recipient, method ActionAuth, accountLocked bool) Audit {
	return Audit{AuditRecipientAuthFailed, with(accessData(r), map[string]any{"method": string(method), "accountLocked": accountLocked})}
}

// IdentityRefusedAudit is RECIPIENT_IDENTITY_REFUSED: R, the RUN that tried and the method
// (via) it came through.
func IdentityRefusedAudit(r Recipient, via ActionAuth, run string) Audit {
	return Audit{AuditRecipientIdentityRefused, with(recipientData(r), map[string]any{"via": via, "run": run})}
}
