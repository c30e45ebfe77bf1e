// Package worker connects Sobre to Temporal: Dial makes the client that the API and the worker
// share (with the SDK's metrics exported to Prometheus and its logs to slog), and New makes the
// worker that runs the envelope workflows and their activities on the task queue
// "sobre-envelopes". It only dials and registers; the process logic is in workflows and
// activities.
//
// It decides nothing of the process. It may import workflows, activities, internal/keyring and
// internal/payloadcodec (every payload is encrypted); never persistence, api or web.
package worker
