// Package envelope is Sobre's domain: the envelope, its items, recipients, fields and audit
// entries as Go types, the enumerations of the API with their allowed values, the validation of
// input values (including the Chilean RUT check digit), and the pure rules of the signing process
// ("who may act now", "may this change happen in this status").
//
// It imports only the standard library. Time and identifiers are passed in as arguments, so the
// Temporal workflow can call the same functions deterministically, and the API can call them to
// fail fast before anything reaches the workflow.
//
// Every other package may import this one; this one imports none of Sobre's packages.
package envelope
