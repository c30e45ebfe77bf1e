// Package loadtest drives a running Sobre from outside, through its public HTTP API only, as
// integrators and signers' browsers do: envelope life cycles (create with a PDF, distribute, an
// approver and two signers, COMPLETED), thousands of envelopes left pending, and mixed traffic
// at a steady rate (vegeta). It reads the processes' memory from /proc and the mails from the
// mailpit sink. `sobre-load` (cmd/sobre-load) is its command line; `make load` runs it.
package loadtest
