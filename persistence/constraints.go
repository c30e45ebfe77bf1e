// Constraints: what breaking one of the schema's constraints means, answered as the domain's errors.

package persistence

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sobre-sign/sobre/envelope"
)

// PostgreSQL's codes of the constraint violations that violations may name.
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
	pgCheckViolation      = "23514"
)

// violation is what a change that breaks one constraint means to its caller: the domain's code
// and message, and for input the caller could have sent otherwise, the input value at fault
// (path, relative to the object the change wrote; "" when no one value is).
type violation struct {
	code    envelope.Code
	message string
	path    string
}

// violations say, by constraint name, what a change that breaks it means. A unique constraint not
// listed is ALREADY_EXISTS naming its table (alreadyExists); a foreign key or check not listed
// stays an internal error, since no input reaches it past the checks made before writing.
var violations = map[string]violation{
	"envelope_items_envelope_id_item_order_key": {envelope.CodeAlreadyExists, "Two documents of this envelope would have the same order", ""},
	"teams_url_key":                      {envelope.CodeAlreadyExists, "A team with this name already exists", ""},
	"users_email_key":                    {envelope.CodeAlreadyExists, "A user with this email already exists", ""},
	"team_members_pkey":                  {envelope.CodeAlreadyExists, "This user is already a member of this team", ""},
	"account_passkeys_credential_id_key": {envelope.CodeAlreadyExists, "This passkey is registered already", ""},
	"signer_accounts_email_idx":          {envelope.CodeAlreadyExists, "An account with this email already exists", ""},
	"fields_recipient_id_fkey":           {envelope.CodeNotFound, "Recipient not found", "recipientId"},
	"fields_envelope_item_id_fkey":       {envelope.CodeNotFound, "Envelope item not found", "envelopeItemId"},
	"fields_page_check":                  {envelope.CodeInvalidBody, "must be at least 1", "page"},
	"recipients_role_check":              {envelope.CodeInvalidBody, "must be one of CC, SIGNER, VIEWER, APPROVER, ASSISTANT", "role"},
}

// domainError turns a constraint violation in err into the *envelope.Error that violations gives
// its constraint, and an unlisted unique violation into ALREADY_EXISTS naming what exists (400,
// as Documenso answers it); any other err is returned as it is. Where input can reach a
// constraint the code checks it first (ids are random, upserts say ON CONFLICT, inputs are
// validated): this is the answer when two requests race past such a check, or a check misses,
// instead of an internal error.
func domainError(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	v, listed := violations[pgErr.ConstraintName]
	switch {
	case listed && (pgErr.Code == pgUniqueViolation || pgErr.Code == pgForeignKeyViolation || pgErr.Code == pgCheckViolation):
		return v.err()
	case pgErr.Code == pgUniqueViolation:
		return alreadyExists(pgErr.TableName)
	}
	return err
}

// err is the violation as the domain's error: INVALID_BODY with its one issue when it names an
// input value, otherwise its code and message.
func (v violation) err() error {
	if v.code == envelope.CodeInvalidBody {
		var p envelope.Problems
		p.Add(v.path, "%s", v.message)
		return p.Err()
	}
	e := &envelope.Error{Code: v.code, Message: v.message}
	if v.path != "" {
		e.Issues = []envelope.Issue{{Path: v.path, Message: v.message}}
	}
	return e
}

// alreadyExists is ALREADY_EXISTS for a row of table that would exist twice.
func alreadyExists(table string) error {
	return &envelope.Error{Code: envelope.CodeAlreadyExists,
		Message: fmt.Sprintf("This %s already exists", strings.TrimSuffix(strings.ReplaceAll(table, "_", " "), "s"))}
}
