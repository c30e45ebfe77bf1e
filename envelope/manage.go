package envelope

// Owned is what the manage rule needs of an envelope: its team, its owner and its visibility.
type Owned struct {
	TeamID     int64
	OwnerID    int64 // the user who owns the envelope
	Visibility Visibility
}

// MayManage decides whether member m may manage envelope e: change it or its documents,
// recipients, fields and attachments, send, resend, duplicate, cancel or delete it, reject on a
// recipient's behalf, and see its recipients' signing tokens. It returns nil, or the error the
// caller gets:
//
//   - an envelope of another team, or one whose visibility m's role does not see (and that m
//     does not own), is NOT_FOUND, as reads answer: its existence is not revealed;
//   - its owner may manage it, whatever the owner's role and the visibility;
//   - a MANAGER or an ADMIN who sees it may manage it (ADMIN sees every visibility, MANAGER
//     EVERYONE and MANAGER_AND_ABOVE);
//   - a MEMBER who is not its owner may not: FORBIDDEN (403).
//
// Documenso lets any team member who sees an envelope change its recipients, fields and auth
// and send it, and keeps cancel and delete for the owner, MANAGERs and ADMINs. Sobre applies
// that stricter rule to every change: a MEMBER sees the team's EVERYONE envelopes but changes
// only their own, so that one member cannot alter, send or end a colleague's envelope.
func MayManage(m Member, e Owned) error {
	switch {
	case m.TeamID != e.TeamID:
		return NotFound("Envelope")
	case m.UserID == e.OwnerID:
		return nil
	case !m.Role.CanSee(e.Visibility):
		return NotFound("Envelope")
	case m.Role == TeamRoleManager || m.Role == TeamRoleAdmin:
		return nil
	}
	return Errorf(CodeForbidden, "Only the envelope's owner, a MANAGER or an ADMIN may do this; your team role is %s", m.Role)
}

// MaySee decides whether member m may read envelope e: one of m's team that m owns, or whose
// visibility m's role sees (ADMIN every visibility, MANAGER EVERYONE and MANAGER_AND_ABOVE,
// MEMBER EVERYONE). The store's queries apply the same rule in SQL; this one decides what is
// decided outside a query: which envelopes' events a webhook made by m carries.
func MaySee(m Member, e Owned) bool {
	return m.TeamID == e.TeamID && (m.UserID == e.OwnerID || m.Role.CanSee(e.Visibility))
}

// MayActFor decides whether member m may act in another member's name: name them with
// actAsEmail (a rejection recorded on a recipient's behalf attributed to them) or with
// delegatedDocumentOwner (an envelope created for them to own). Acting in one's own name is
// always allowed; in another member's name only a MANAGER or an ADMIN may, and only for a
// member of the same team (NOT_FOUND otherwise). The audit entry still names m, the real
// caller, next to the member it acted for.
func MayActFor(m, other Member) error {
	switch {
	case m.TeamID != other.TeamID:
		return NotFound("Team member")
	case m.UserID == other.UserID:
		return nil
	case m.Role == TeamRoleManager || m.Role == TeamRoleAdmin:
		return nil
	}
	return Errorf(CodeForbidden, "Only a MANAGER or an ADMIN may act in another member's name; your team role is %s", m.Role)
}

// Owned is what the manage rule needs of e.
func (e *Envelope) Owned() Owned {
	return Owned{TeamID: e.TeamID, OwnerID: e.UserID, Visibility: e.Visibility}
}
