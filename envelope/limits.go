package envelope

// MaxRecipients is the most recipients one envelope has: more is refused as
// RECIPIENT_LIMIT_EXCEEDED (Documenso's code, answered 400).
const MaxRecipients = 100

// CodeRecipientLimit refuses an envelope past MaxRecipients.
const CodeRecipientLimit = Code("RECIPIENT_LIMIT_EXCEEDED")

// MaxItems is the most documents one envelope holds (and one upload carries): more is refused
// as ENVELOPE_ITEM_LIMIT_EXCEEDED (Documenso's code, answered 400).
const MaxItems = 20

// CodeItemLimit refuses an envelope past MaxItems, or an upload of more files.
const CodeItemLimit = Code("ENVELOPE_ITEM_LIMIT_EXCEEDED")
