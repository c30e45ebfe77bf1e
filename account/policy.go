package account

// CheckPassword refuses a password that is shorter than 10 characters, is the email address, or
// is one of the most common passwords (common-passwords.txt): a 400 naming "password".
func CheckPassword(email, password string) error {
	return errNotBuilt
}
