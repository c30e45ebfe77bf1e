// Package config reads Sobre's configuration from environment variables, each with a documented
// default that works for `make run` on one machine. A variable ending in _FILE names a file whose
// content is the value (for secrets mounted as files).
//
// It decides what each variable means and its default. It may import internal/keyring (to load
// or make the key files the variables name) and otherwise only the standard library; nothing that
// serves requests.
package config
