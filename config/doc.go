// Package config reads Sobre's configuration from environment variables, each with a documented
// default that works for `make run` on one machine. A variable ending in _FILE names a file whose
// content is the value (for secrets mounted as files).
//
// It imports only the standard library.
package config
