package envelope

// MaxRecipients is the most recipients one envelope has: more is refused as
// RECIPIENT_LIMIT_EXCEEDED (Documenso's code, answered 400).
const MaxRecipients = 100

// CodeRecipientLimit refuses an envelope past MaxRecipients.
const CodeRecipientLimit = Code("RECIPIENT_LIMIT_EXCEEDED")
