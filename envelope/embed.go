package envelope

// MayManageEmbedOrigins refuses a member who may not change which origins may frame the team's
// embedded signing page: only a MANAGER or an ADMIN may (a MEMBER could otherwise let any site
// frame the team's signing pages).
func MayManageEmbedOrigins(m Member) error {
	if m.Role == TeamRoleManager || m.Role == TeamRoleAdmin {
		return nil
	}
	return Errorf(CodeForbidden, "Only a MANAGER or an ADMIN may read or change the team's embed origins; your team role is %s", m.Role)
}
