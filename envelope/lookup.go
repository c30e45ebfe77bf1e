package envelope

// Recipient is e's recipient id, or nil when e has none of that id.
func (e *Envelope) Recipient(id int64) *Recipient { return FindRecipient(e.Recipients, id) }

// FindRecipient is the recipient of rs with id, or nil when none has it.
func FindRecipient(rs []Recipient, id int64) *Recipient {
	for i := range rs {
		if rs[i].ID == id {
			return &rs[i]
		}
	}
	return nil
}
