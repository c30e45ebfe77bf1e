package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
)

// tokensHidden reports whether the caller of r gets the recipients' signing tokens of e masked
// (the empty string, as Documenso masks them): everyone but those who may manage e
// (envelope.MayManage) does.
func tokensHidden(r *http.Request, e *envelope.Envelope) bool { return mayManage(r, e.Owned()) != nil }
