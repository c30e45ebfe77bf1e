// Package persistence stores Sobre's state in PostgreSQL: the schema and its migrations (embedded
// SQL files run by goose), and one Store whose methods read and write envelopes, recipients,
// fields, attachments, audit entries, teams, users and API keys.
//
// Every query that touches an envelope is scoped by team. Multi-row changes run in one
// transaction (see Store.InTx). pgx appears only in this package; callers see the domain types of
// package envelope and the errors it defines (a missing row is envelope.CodeNotFound).
//
// Recipients' signing tokens are kept as a SHA-256, by which they are looked up, and sealed with
// the Store's keyring (WithKeyring), never in the clear (tokens.go).
//
// It decides how state is stored and read back, never what a change means (package envelope
// decides that). It may import package envelope, internal/keyring and auth/fea (for the FAO_HASH
// digest a recipient signs), and no other package of Sobre: never mail, the workflow, the
// ceremony or the transports.
package persistence
