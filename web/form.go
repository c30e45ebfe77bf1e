package web

import (
	"errors"
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
)

// errFormNotText is parseTextForm's answer to a form holding a value that is not UTF-8 text or
// holds the NUL character.
var errFormNotText = errors.New("a form value is not UTF-8 text without NUL")

// parseTextForm parses r's form (its URL's query and a POST's body, r.ParseForm) and checks that
// every name and value is UTF-8 text without the NUL character, which no text column stores: a
// form that is not is refused as unreadable, before anything reaches the database.
func parseTextForm(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return err
	}
	if _, found := envelope.NonText(r.Form); found {
		return errFormNotText
	}
	return nil
}
