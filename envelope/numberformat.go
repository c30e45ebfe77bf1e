package envelope

import (
	"regexp"
	"strconv"
	"strings"
)

// numberFormats are the numberFormat values Documenso's editor offers, each with the pattern a
// value written in it follows (at most two decimals, as Documenso's), its grouping separator and
// its decimal separator. A leading minus sign is allowed in addition to Documenso's patterns.
var numberFormats = map[string]struct {
	pattern      *regexp.Regexp
	group, point string
}{
	"123,456,789.00":  {regexp.MustCompile(`^-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?$`), ",", "."},
	"123.456.789,00":  {regexp.MustCompile(`^-?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d{1,2})?$`), ".", ","},
	"123 456 789,00":  {regexp.MustCompile(`^-?(?:\d{1,3}(?: \d{3})+|\d+)(?:,\d{1,2})?$`), " ", ","},
	"123 456 789.00":  {regexp.MustCompile(`^-?(?:\d{1,3}(?: \d{3})+|\d+)(?:\.\d{1,2})?$`), " ", "."},
	"12,34,56,789.00": {regexp.MustCompile(`^-?(?:\d{1,2}(?:,\d{2})*,\d{3}|\d+)(?:\.\d{1,2})?$`), ",", "."},
	"123456,789.00":   {regexp.MustCompile(`^-?\d+(?:,\d{1,3})?(?:\.\d{1,2})?$`), ",", "."},
}

// NumberFormats lists the numberFormat values whose layout Sobre knows (Documenso's editor
// choices). Any other numberFormat of at most MaxNumberFormat characters is stored as given and
// leaves values to ParseNumber.
func NumberFormats() []string {
	return []string{"123,456,789.00", "123.456.789,00", "123 456 789,00", "123 456 789.00", "12,34,56,789.00", "123456,789.00"}
}

// ParseNumber reads a NUMBER field's value written without a known numberFormat: digits with an
// optional sign and at most one decimal point or comma ("1234.5", "-3", "2,75"). Grouping
// separators, exponents, hexadecimal, Inf and NaN are refused.
func ParseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.Count(s, ".")+strings.Count(s, ",") > 1 || strings.ContainsAny(s, "eEinfINFxX_") {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Replace(s, ",", ".", 1), 64)
	return v, err == nil
}

// ParseNumberFormat reads a NUMBER field's value written in the field's numberFormat: with one of
// NumberFormats the value must follow that layout ("1.234,5" in "123.456.789,00" is 1234.5);
// with an empty or other format it is read by ParseNumber.
func ParseNumberFormat(s, format string) (float64, bool) {
	nf, known := numberFormats[format]
	if !known {
		return ParseNumber(s)
	}
	s = strings.TrimSpace(s)
	if !nf.pattern.MatchString(s) {
		return 0, false
	}
	s = strings.ReplaceAll(s, nf.group, "")
	s = strings.Replace(s, nf.point, ".", 1)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}
