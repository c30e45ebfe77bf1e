// Package mail writes and sends Sobre's mail: Compose renders each kind of message in English
// or Spanish as plain text and HTML, and Sender hands it to the SMTP relay of SMTP_URL with
// go-mail, with the Message-ID the caller gives (stable across retries).
//
// It decides the words and the form of every mail, never who receives one or when. It imports
// package envelope (for the language and role names) only.
package mail
