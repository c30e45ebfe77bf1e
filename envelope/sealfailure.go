package envelope

// SealFailure says why the seal of a completed envelope gave up: it is the type of the seal
// activity's non-retryable error, which the workflow reads to decide how it waits before the
// next attempt (SealFailure.RetriesByItself).
type SealFailure string

// Why a seal gives up.
const (
	// SealNotConfigured: the worker has no seal certificate.
	SealNotConfigured SealFailure = "SEAL_NOT_CONFIGURED"
	// SealChainBroken: the envelope's audit log does not verify (its hash chain or HMACs).
	SealChainBroken SealFailure = "SEAL_REFUSED_CHAIN"
	// SealNotShown: the sealed document would not show what the signers were shown, or a stored
	// document is not the one they completed on.
	SealNotShown SealFailure = "SEAL_REFUSED_NOT_SHOWN"
	// SealUnreadable: a stored document cannot be read within the limits.
	SealUnreadable SealFailure = "SEAL_REFUSED_UNREADABLE"
	// SealSignatureLayout: the signature cannot be laid out in the document.
	SealSignatureLayout SealFailure = "SEAL_REFUSED_SIGNATURE_LAYOUT"
	// SealPanic: the seal panicked.
	SealPanic SealFailure = "SEAL_REFUSED_PANIC"
	// SealTSAUnavailable: the timestamp authority could not be reached, or failed, for longer
	// than the seal retries it, and a timestamp is required.
	SealTSAUnavailable SealFailure = "SEAL_TSA_UNAVAILABLE"
	// SealFailed: a failure that may pass (the database, say) outlasted the seal's retries.
	SealFailed SealFailure = "SEAL_FAILED"
)

// RetriesByItself reports whether a seal that gave up for f is tried again after a while
// without being asked (a TSA outage, a failure that may pass). Every other failure, and a type
// this list does not know, can never succeed as things stand: it is tried again only when an
// operator sends the retry-seal signal, once the cause is mended.
func (f SealFailure) RetriesByItself() bool {
	return f == SealTSAUnavailable || f == SealFailed
}
