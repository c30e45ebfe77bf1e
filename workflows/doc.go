// Package workflows holds Sobre's Temporal workflows. EnvelopeWorkflow owns a distributed
// envelope's life: it computes who may act now with the domain's pure rules, asks activities to
// mail signing requests, arms reminder and expiry timers, takes recipient events as validated
// Updates and Signals, and ends the envelope COMPLETED, REJECTED or CANCELLED.
//
// A run's history is bounded: Update validators refuse oversized requests, a burst of refresh
// signals is read with one reload, a store call that keeps failing retries as a regular
// activity (local.go), waits cancel their timers (await.go), and a long run continues as new with
// its whole state (continue.go).
//
// Workflow code is deterministic: no clock, randomness, map iteration or I/O outside the
// workflow package's own calls and activities. It calls its activities by name
// (activitynames.go; the worker registers the methods of activities.Activities under those
// names), and everything it keeps in its history (its input and state, Update arguments,
// activity arguments and results) is a type of envelope that has no place for a secret. It
// imports envelope only.
package workflows
