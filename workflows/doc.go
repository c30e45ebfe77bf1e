// Package workflows holds Sobre's Temporal workflows. EnvelopeWorkflow owns a distributed
// envelope's life: it computes who may act now with the domain's pure rules, asks activities to
// mail signing requests, arms reminder and expiry timers, takes recipient events as validated
// Updates and Signals, and ends the envelope COMPLETED, REJECTED or CANCELLED.
//
// A run's history is bounded: Update validators refuse oversized requests, a burst of refresh
// signals is read with one reload, and a long run continues as new with its whole state
// (continue.go).
//
// Workflow code is deterministic: no clock, randomness, map iteration or I/O outside the
// workflow package's own calls and activities.
//
// It decides when each step of a distributed envelope happens (the domain decides what each
// step may do). It may import the domain (envelope), activities (for the activity method
// references) and mail; never persistence (its state, inputs and Update arguments are domain
// types, without secrets), api, web or cmd.
package workflows
