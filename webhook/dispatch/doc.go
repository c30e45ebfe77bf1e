// Package dispatch hands the webhooks' outbox to Temporal: after an event's transaction commits,
// the Dispatcher starts or wakes the delivery workflow of each route (one webhook's calls for one
// envelope) whose calls wait, and marks those calls dispatched (docs/webhooks.md, Delivery).
//
// It runs in the worker process. It imports only the domain and the store; the Temporal client
// reaches it through the Waker interface.
package dispatch
