package workflows

// The activities the workflows call, by name. The worker registers the methods of
// activities.Activities, which bear these names, so the workflows call the store and the mail
// relay without importing them: their arguments and results are envelope's types. The names are
// in every recorded history: a name changes only with a new workflow version.
const (
	actLoadSnapshot      = "LoadSnapshot"
	actMarkPending       = "MarkPending"
	actMarkSent          = "MarkSent"
	actCompleteRecipient = "CompleteRecipient"
	actRejectRecipient   = "RejectRecipient"
	actFinishEnvelope    = "FinishEnvelope"
	actExpireRecipients  = "ExpireRecipients"
	actRenewDeadlines    = "RenewDeadlines"
	actHardDelete        = "HardDelete"
	actMarkRemoving      = "MarkRemoving"
	actSendNotice        = "SendNotice"
	actSendNotices       = "SendNotices"
	actMailUndeliverable = "MailUndeliverable"
	actSealEnvelope      = "SealEnvelope"
	actPurgeExpired      = "PurgeExpired"
	actLoadPickup        = "LoadPickup"

	actSweepWebhookCalls  = "SweepWebhookCalls"
	actAttemptWebhookCall = "AttemptWebhookCall"
	actDisableWebhook     = "DisableWebhook"
	actFailWebhookCall    = "FailWebhookCall"
	actPurgeWebhookCalls  = "PurgeWebhookCalls"

	actBulkSendRow    = "BulkSendRow"
	actFinishBulkSend = "FinishBulkSend"
)

// ActivityNames lists every activity the workflows call: a worker that runs them registers an
// activity under each name.
func ActivityNames() []string {
	return []string{actLoadSnapshot, actMarkPending, actMarkSent, actCompleteRecipient, actRejectRecipient, actFinishEnvelope,
		actExpireRecipients, actRenewDeadlines, actHardDelete, actMarkRemoving, actSendNotice, actSendNotices, actMailUndeliverable, actSealEnvelope, actPurgeExpired, actLoadPickup,
		actSweepWebhookCalls, actAttemptWebhookCall, actDisableWebhook, actFailWebhookCall, actPurgeWebhookCalls,
		actBulkSendRow, actFinishBulkSend}
}
