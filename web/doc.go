// Package web serves the signing pages: {SOBRE_PUBLIC_URL}/sign/{token}, where a recipient reads
// the document (pages rendered to images on the server, so the browser needs no PDF viewer),
// fills their fields, proves who they are when the envelope demands it, and signs, approves,
// marks viewed or rejects. Pages are html/template in English and Spanish; the one script and
// style sheet are embedded files served from /static/sign/, nothing is fetched from elsewhere.
//
// The pages act through the recipient signing API (/api/v2/signing/{token}); the proofs
// (mailed code, Clave Única, FAO_HASH) are the ceremony package's.
//
// It may import ceremony, persistence, pdf and the domain (envelope); never api or cmd.
package web
