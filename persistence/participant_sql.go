// The signing-order rules that queries must apply in SQL, to pick rows without reading them all.

package persistence

// pendingSQL is envelope.Participant.Pending over the recipients row aliased r: anyone but a CC
// who has neither signed nor rejected still has to act. TestParticipantSQL holds the two equal.
const pendingSQL = `r.role <> 'CC' AND r.signing_status = 'NOT_SIGNED'`

// overdueSQL is envelope.Participant.Overdue over the recipients row aliased r at the instant
// the SQL expression at names: pending (pendingSQL) and the deadline at or before it (no deadline,
// never overdue). TestParticipantSQL holds the two equal.
func overdueSQL(at string) string {
	return pendingSQL + ` AND r.expires_at <= ` + at
}
