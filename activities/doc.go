// Package activities holds the side effects of the envelope workflow: idempotent writes to
// PostgreSQL guarded by the expected state, audit entries, and mail sent through go-mail with a
// stable Message-ID and a sent-record so that a retried activity never mails twice.
//
// What an activity takes and returns is kept in the workflow's history, so both are envelope's
// types: the steps the workflow asks for (envelope.Mailing, envelope.Sent, ...) and its view of
// the envelope (envelope.Progress), without signing tokens or other secrets; the mail activity
// reads the signing link from PostgreSQL itself.
//
// Activities are methods on a struct holding their dependencies; the worker registers them by
// method name, the names the workflow calls them by (workflows.ActivityNames).
//
// It decides how each side effect is done exactly once, never whether it is due (the workflow
// and the domain decide that). It may import the domain (envelope), persistence, mail, pdf and
// seal; never workflows, api, web or cmd.
package activities
