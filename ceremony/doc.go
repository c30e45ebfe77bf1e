// Package ceremony runs a recipient's signing ceremony: the browser session that a signing link
// is exchanged for, and the proofs an envelope may demand before the recipient sees the document
// or acts on it: a mailed access code (TWO_FACTOR_AUTH), a Clave Única login (CLAVE_UNICA, and
// every RUT_FIRMADO field) and an advanced electronic signature over the envelope's digest
// (FAO_HASH).
//
// Both the signing pages (web) and the signing API (api) ask it the same questions, so a proof
// given in the browser applies to the API calls the page makes, and to nothing else: the proof
// lives with the browser's session (an HttpOnly cookie), not with the signing link.
//
// It decides whether a recipient has proved what the envelope asks of them (package envelope
// decides what that is). It may import the domain (envelope), persistence, mail, config, account,
// auth/claveunica and auth/fea; never api, web, the workflow or cmd.
package ceremony
