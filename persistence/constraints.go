// Constraints: the unique violations a change can break, answered as the domain's errors.

package persistence

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sobre-sign/sobre/envelope"
)

// isUniqueViolation reports whether err is a violation of the named unique constraint (or of
// any unique constraint when name is empty).
func isUniqueViolation(err error, name string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		return false
	}
	return name == "" || pgErr.ConstraintName == name
}

// uniqueMeanings say, by constraint, what a change that breaks it would have made twice.
var uniqueMeanings = map[string]string{
	"envelope_items_envelope_id_item_order_key": "Two documents of this envelope would have the same order",
	"teams_url_key":                      "A team with this name already exists",
	"users_email_key":                    "A user with this email already exists",
	"team_members_pkey":                  "This user is already a member of this team",
	"account_passkeys_credential_id_key": "This passkey is registered already",
}

// alreadyExists turns a unique violation in err into an *envelope.Error ALREADY_EXISTS (400, as
// Documenso answers it) that says what exists; any other err is returned as it is. Where input can reach a uniqueness the code checks it first
// (ids are random, upserts say ON CONFLICT): this is the answer when two requests race past such
// a check, instead of an internal error.
func alreadyExists(err error) error {
	if !isUniqueViolation(err, "") {
		return err
	}
	var pgErr *pgconn.PgError
	errors.As(err, &pgErr)
	msg, ok := uniqueMeanings[pgErr.ConstraintName]
	if !ok {
		msg = fmt.Sprintf("This %s already exists", strings.TrimSuffix(strings.ReplaceAll(pgErr.TableName, "_", " "), "s"))
	}
	return &envelope.Error{Code: envelope.CodeAlreadyExists, Message: msg}
}
