// Package view holds the JSON shapes of envelopes, recipients and fields as Documenso's SDK parses
// them: what the API answers and what a webhook's payload carries. Converters named after the
// shapes turn domain values into views; nothing else describes an envelope in JSON.
//
// It decides the shape of an envelope in JSON, never what a caller may see of it (the API
// decides whether tokens are masked), and imports only the domain.
package view
