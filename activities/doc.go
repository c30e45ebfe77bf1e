// Package activities holds the side effects of the envelope workflow: idempotent writes to
// PostgreSQL guarded by the expected state, audit entries, and mail sent through go-mail with a
// stable Message-ID and a sent-record so that a retried activity never mails twice.
//
// What an activity takes and returns is kept in the workflow's history: the results are the
// workflow's view (Snapshot, Recipient), without signing tokens or other secrets, and the mail
// activity reads the signing link from PostgreSQL itself.
//
// Activities are methods on a struct holding their dependencies; the workflow refers to them
// through a nil pointer of that struct.
//
// It decides how each side effect is done exactly once, never whether it is due (the workflow
// and the domain decide that). It may import the domain (envelope), persistence, mail, pdf and
// seal; never workflows, api, web or cmd.
package activities
