package envelope

// Recipient is e's recipient id, or nil when e has none of that id.
func (e *Envelope) Recipient(id int64) *Recipient {
	for i := range e.Recipients {
		if e.Recipients[i].ID == id {
			return &e.Recipients[i]
		}
	}
	return nil
}
