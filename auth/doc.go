// Package auth authenticates API callers. An API key is "api_" followed by 32 characters of
// base32 (160 random bits); only its SHA-256 is stored, and the key is shown once, when made.
// The HTTP middleware reads `Authorization: <key>` or `Authorization: Bearer <key>`, resolves the
// key to the team member who owns it and puts that member in the request's context; every query
// that follows is scoped by the member's team.
//
// It decides who an API caller is. It may import package envelope (for the member and its role)
// and package persistence; never api, web, the workflow or cmd.
package auth
