// Package api is Sobre's HTTP interface: the Documenso-compatible envelope API v2 under
// /api/v2 (and its alias /api/v2-beta), the OpenAPI document, health and readiness probes and
// the Prometheus metrics endpoint.
//
// Every route is declared in one function (Server.Handler). Handlers read in one order: decode
// (with a size limit), validate (collecting every problem with its JSON path), call the store or
// the workflow client, respond. Every failure is answered by writeError with the body
// {message, code, issues}; one table, envelope.Code.HTTPStatus (the pages' too), maps error codes
// to HTTP statuses, and only internal errors are logged, shown to the caller as a plain
// "Internal server error".
//
// It decides how the API reads requests and answers them, never a rule of the envelope (package
// envelope decides those). It may import the domain (envelope), config, persistence, pdf, seal,
// auth, account, ceremony, web (which it mounts) and workflows (to start and signal envelope
// workflows). Nothing imports api but cmd.
package api
