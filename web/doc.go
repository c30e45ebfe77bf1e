// Package web serves the signing pages: {SOBRE_PUBLIC_URL}/sign/{token}, where a recipient reads
// the document (pages rendered to images on the server, so the browser needs no PDF viewer),
// fills their fields, proves who they are when the envelope demands it, and signs, approves,
// marks viewed or rejects; and the account pages (/account...), where a signer creates and
// keeps the account some envelopes ask them to be signed in to (docs/signer-accounts.md).
// The same page, framed by another site, is /embed/sign/{token} (embed.go; README "Embedded
// signing"). Pages are html/template in English and Spanish; the scripts and the style sheet are embedded
// files served from /static/sign/, nothing is fetched from elsewhere, and no page has inline
// script or style.
//
// The pages act through the recipient signing API (/api/v2/signing/{token}); the proofs
// (mailed code, Clave Única, FAO_HASH, the account's) are the ceremony package's, the accounts
// the account package's.
//
// It decides how the pages look and read, never a rule of the envelope. It may import account,
// ceremony, persistence, pdf and the domain (envelope); never api, the workflow or cmd.
package web
