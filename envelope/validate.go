package envelope

import (
	"maps"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of the SPEC's Limits table, and Sobre's own where the SPEC is silent.
const (
	MaxTitle          = 255
	MaxExternalID     = 255
	MaxRecipientName  = 255
	MaxSubject        = 254
	MaxMessage        = 5000
	MaxPosition       = 100.0
	MaxEmail          = 254
	MaxAttachmentData = 2048
	MaxLabel          = 255
	MaxReason         = 2000
	MaxFormValues     = 200
	MaxSearchQuery    = 256 // the search's query: longer ones cost the database without finding more
	MinSearchQuery    = 3   // the search's query, when given: a substring search needs one trigram
)

// ValidEmail reports whether s is one plain email address (no display name).
func ValidEmail(s string) bool {
	if s == "" || len(s) > MaxEmail || strings.ContainsAny(s, " <>\r\n") {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".")
}

// CheckLength records a problem when s is shorter than lo or longer than hi characters.
func CheckLength(p *Problems, path, s string, lo, hi int) {
	n := utf8.RuneCountInString(s)
	switch {
	case lo > 0 && n < lo && n == 0:
		p.Add(path, "is required and may not be empty")
	case n < lo:
		p.Add(path, "must be at least %d characters, got %d", lo, n)
	case n > hi:
		p.Add(path, "must be at most %d characters, got %d", hi, n)
	}
}

// CheckEnums records a problem for each value not in allowed and returns the values without
// repeats, in their first order.
func CheckEnums[T ~string](p *Problems, path string, values []T, allowed []T) []T {
	out := make([]T, 0, len(values))
	for i, v := range values {
		if !OneOf(v, allowed) {
			p.Add(Join(path, i), "must be one of %v, got %q", allowed, v)
			continue
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// CheckHTTPURL records a problem unless s is an absolute http:// or https:// URL with a host:
// a link someone will follow. Other schemes (javascript:, data:, file:, vbscript:...) would run
// or read something in the follower's browser instead of opening a page.
func CheckHTTPURL(p *Problems, path, s string) {
	if validHTTPURL(s) {
		return
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" && len(u.Scheme) <= 32 {
		p.Add(path, "must be an http or https URL, not a %s: URL", u.Scheme)
		return
	}
	p.Add(path, "must be an absolute http or https URL")
}

// DurationInput is a duration as sent: both members are required.
type DurationInput struct {
	Unit     *string `json:"unit"`
	Amount   *int    `json:"amount"`
	Disabled *bool   `json:"disabled,omitempty"`
}

func (d *DurationInput) check(p *Problems, path string, units []DurationUnit) Duration {
	var out Duration
	switch {
	case d.Unit == nil:
		p.Add(Join(path, "unit"), "is required")
	case !OneOf(DurationUnit(*d.Unit), units):
		p.Add(Join(path, "unit"), "must be one of %v, got %q", units, *d.Unit)
	default:
		out.Unit = DurationUnit(*d.Unit)
	}
	switch {
	case d.Amount == nil:
		p.Add(Join(path, "amount"), "is required")
	case *d.Amount < 1:
		p.Add(Join(path, "amount"), "must be an integer of at least 1, got %d", *d.Amount)
	case *d.Amount > 1000:
		p.Add(Join(path, "amount"), "must be at most 1000, got %d", *d.Amount)
	default:
		out.Amount = *d.Amount
	}
	return out
}

// ReminderInput is reminderSettings as sent.
type ReminderInput struct {
	SendAfter   *DurationInput `json:"sendAfter"`
	RepeatEvery *DurationInput `json:"repeatEvery"`
}

// EmailSettingsInput holds the emailSettings members sent; absent members keep their value.
type EmailSettingsInput struct {
	RecipientSigningRequest *bool `json:"recipientSigningRequest"`
	RecipientRemoved        *bool `json:"recipientRemoved"`
	RecipientSigned         *bool `json:"recipientSigned"`
	DocumentPending         *bool `json:"documentPending"`
	DocumentCompleted       *bool `json:"documentCompleted"`
	DocumentDeleted         *bool `json:"documentDeleted"`
	OwnerDocumentCompleted  *bool `json:"ownerDocumentCompleted"`
	OwnerRecipientExpired   *bool `json:"ownerRecipientExpired"`
	OwnerDocumentCreated    *bool `json:"ownerDocumentCreated"`
}

func (in *EmailSettingsInput) applyTo(s *EmailSettings) {
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&s.RecipientSigningRequest, in.RecipientSigningRequest)
	set(&s.RecipientRemoved, in.RecipientRemoved)
	set(&s.RecipientSigned, in.RecipientSigned)
	set(&s.DocumentPending, in.DocumentPending)
	set(&s.DocumentCompleted, in.DocumentCompleted)
	set(&s.DocumentDeleted, in.DocumentDeleted)
	set(&s.OwnerDocumentCompleted, in.OwnerDocumentCompleted)
	set(&s.OwnerRecipientExpired, in.OwnerRecipientExpired)
	set(&s.OwnerDocumentCreated, in.OwnerDocumentCreated)
}

// Optional is a JSON member that may be absent, null or a value: Set tells absent from the rest,
// Null tells null from a value.
type Optional[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON records that the member was present.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return jsonUnmarshal(b, &o.Value)
}

// Ptr returns nil for null, else a pointer to the value.
func (o Optional[T]) Ptr() *T {
	if o.Null {
		return nil
	}
	v := o.Value
	return &v
}

// MetaInput is documentMeta as sent to create, update, distribute and use: every member is
// optional; an absent member leaves the current value.
type MetaInput struct {
	Subject                  Optional[string]        `json:"subject"`
	Message                  Optional[string]        `json:"message"`
	Timezone                 Optional[string]        `json:"timezone"`
	DateFormat               Optional[string]        `json:"dateFormat"`
	DistributionMethod       *string                 `json:"distributionMethod"`
	SigningOrder             *string                 `json:"signingOrder"`
	AllowDictateNextSigner   *bool                   `json:"allowDictateNextSigner"`
	RedirectURL              Optional[string]        `json:"redirectUrl"`
	Language                 *string                 `json:"language"`
	TypedSignatureEnabled    *bool                   `json:"typedSignatureEnabled"`
	UploadSignatureEnabled   *bool                   `json:"uploadSignatureEnabled"`
	DrawSignatureEnabled     *bool                   `json:"drawSignatureEnabled"`
	EmailID                  Optional[string]        `json:"emailId"`
	EmailReplyTo             Optional[string]        `json:"emailReplyTo"`
	EmailSettings            *EmailSettingsInput     `json:"emailSettings"`
	EnvelopeExpirationPeriod Optional[DurationInput] `json:"envelopeExpirationPeriod"`
	ReminderSettings         Optional[ReminderInput] `json:"reminderSettings"`
}

// MetaChange is one changed member of documentMeta, for the audit log.
type MetaChange struct {
	Type string `json:"type"`
	From any    `json:"from"`
	To   any    `json:"to"`
}

// Apply validates in, recording problems under path, and applies it to m. It returns the
// members that changed.
func (in *MetaInput) Apply(p *Problems, path string, m *Meta) []MetaChange {
	if in == nil {
		return nil
	}
	var changes []MetaChange
	change := func(name string, from, to any) {
		changes = append(changes, MetaChange{Type: name, From: from, To: to})
	}
	str := func(name string, o Optional[string], max int, dst **string, check func(string) bool, what string) {
		if !o.Set {
			return
		}
		if !o.Null {
			if max > 0 {
				CheckLength(p, Join(path, name), o.Value, 0, max)
			}
			if check != nil && o.Value != "" && !check(o.Value) {
				p.Add(Join(path, name), "must be %s, got %q", what, o.Value)
			}
		}
		old := deref(*dst)
		*dst = o.Ptr()
		if old != deref(*dst) {
			change(name, old, deref(*dst))
		}
	}
	str("subject", in.Subject, MaxSubject, &m.Subject, nil, "")
	str("message", in.Message, MaxMessage, &m.Message, nil, "")
	str("timezone", in.Timezone, 64, &m.Timezone, validTimezone, "an IANA time zone such as America/Santiago")
	str("dateFormat", in.DateFormat, 0, &m.DateFormat, func(s string) bool { return OneOf(s, DateFormats()) }, "one of the date formats listed in the API")
	str("redirectUrl", in.RedirectURL, 2048, &m.RedirectURL, validHTTPURL, "an http(s) URL")
	str("emailId", in.EmailID, 255, &m.EmailID, nil, "")
	str("emailReplyTo", in.EmailReplyTo, MaxEmail, &m.EmailReplyTo, ValidEmail, "an email address")
	if in.DateFormat.Set && in.DateFormat.Null {
		df := DefaultDateFormat
		m.DateFormat = &df
	}
	if in.Timezone.Set && in.Timezone.Null {
		tz := DefaultTimezone
		m.Timezone = &tz
	}

	enumSet := func(name string, v *string, allowed []string, dst *string) {
		if v == nil {
			return
		}
		if !OneOf(*v, allowed) {
			p.Add(Join(path, name), "must be one of %v, got %q", allowed, *v)
			return
		}
		if *dst != *v {
			change(name, *dst, *v)
			*dst = *v
		}
	}
	so, dm, lang := string(m.SigningOrder), string(m.DistributionMethod), string(m.Language)
	enumSet("signingOrder", in.SigningOrder, strs(SigningOrders()), &so)
	enumSet("distributionMethod", in.DistributionMethod, strs(DistributionMethods()), &dm)
	enumSet("language", in.Language, strs(Languages()), &lang)
	m.SigningOrder, m.DistributionMethod, m.Language = SigningOrder(so), DistributionMethod(dm), Language(lang)

	boolSet := func(name string, v *bool, dst *bool) {
		if v != nil && *v != *dst {
			change(name, *dst, *v)
			*dst = *v
		}
	}
	boolSet("allowDictateNextSigner", in.AllowDictateNextSigner, &m.AllowDictateNextSigner)
	boolSet("typedSignatureEnabled", in.TypedSignatureEnabled, &m.TypedSignatureEnabled)
	boolSet("uploadSignatureEnabled", in.UploadSignatureEnabled, &m.UploadSignatureEnabled)
	boolSet("drawSignatureEnabled", in.DrawSignatureEnabled, &m.DrawSignatureEnabled)
	if !m.TypedSignatureEnabled && !m.UploadSignatureEnabled && !m.DrawSignatureEnabled {
		p.Add(path, "at least one of typedSignatureEnabled, uploadSignatureEnabled and drawSignatureEnabled must stay true")
	}
	if in.EmailSettings != nil {
		old := m.EmailSettings
		in.EmailSettings.applyTo(&m.EmailSettings)
		if old != m.EmailSettings {
			change("emailSettings", old, m.EmailSettings)
		}
	}
	if o := in.EnvelopeExpirationPeriod; o.Set {
		old := m.EnvelopeExpirationPeriod
		switch {
		case o.Null:
			m.EnvelopeExpirationPeriod = nil
		case o.Value.Disabled != nil:
			if !*o.Value.Disabled {
				p.Add(Join(Join(path, "envelopeExpirationPeriod"), "disabled"), "must be true when given")
			}
			m.EnvelopeExpirationPeriod = &ExpirationPeriod{Disabled: true}
		default:
			d := o.Value.check(p, Join(path, "envelopeExpirationPeriod"), []DurationUnit{UnitDay, UnitWeek, UnitMonth, UnitYear})
			m.EnvelopeExpirationPeriod = &ExpirationPeriod{Duration: d}
		}
		if !equalPtr(old, m.EnvelopeExpirationPeriod) {
			change("envelopeExpirationPeriod", old, m.EnvelopeExpirationPeriod)
		}
	}
	if o := in.ReminderSettings; o.Set {
		old := m.ReminderSettings
		if o.Null {
			m.ReminderSettings = nil
		} else {
			rp := Join(path, "reminderSettings")
			units := []DurationUnit{UnitDay, UnitWeek, UnitMonth}
			var rs ReminderSettings
			if o.Value.SendAfter == nil {
				p.Add(Join(rp, "sendAfter"), "is required")
			} else {
				rs.SendAfter = o.Value.SendAfter.check(p, Join(rp, "sendAfter"), units)
			}
			if o.Value.RepeatEvery == nil {
				p.Add(Join(rp, "repeatEvery"), "is required")
			} else {
				rs.RepeatEvery = o.Value.RepeatEvery.check(p, Join(rp, "repeatEvery"), units)
			}
			m.ReminderSettings = &rs
		}
		if !equalPtr(old, m.ReminderSettings) {
			change("reminderSettings", old, m.ReminderSettings)
		}
	}
	return changes
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func strs[T ~string](in []T) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

func validTimezone(s string) bool {
	if s == "" || strings.Contains(s, "..") {
		return false
	}
	_, err := time.LoadLocation(s)
	return err == nil
}

func validHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// IsText reports whether s is UTF-8 text without the NUL character: what a text column of the
// database can store. Input from a URL or a form that is not is refused before it gets there.
func IsText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// NonText names the first parameter of values (a URL's query or a form), in the order of their
// names, whose name or a value is not text (IsText), made printable; found is false when every
// one is text.
func NonText(values map[string][]string) (name string, found bool) {
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if !IsText(name) {
			return strings.ToValidUTF8(strings.ReplaceAll(name, "\x00", ""), "\uFFFD"), true
		}
		for _, v := range values[name] {
			if !IsText(v) {
				return name, true
			}
		}
	}
	return "", false
}

// CheckOnce records a problem at path(i) for each of ids that an earlier one names too: an
// update-many request names each object once (what says which: "recipient", "field",
// "document"). An id left out (nil) is another check's problem.
func CheckOnce[T comparable](p *Problems, what string, ids []*T, path func(i int) string) {
	seen := make(map[T]bool, len(ids))
	for i, id := range ids {
		if id == nil {
			continue
		}
		if seen[*id] {
			p.Add(path(i), "%s %v appears twice", what, *id)
		}
		seen[*id] = true
	}
}
