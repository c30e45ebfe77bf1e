package envelope

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFileName is the longest download name Sobre sends, in characters (file systems allow 255
// bytes; a name of UTF-8 letters of two or three bytes each must still fit once saved).
const MaxFileName = 80

// FileTitle is the title an uploaded file's name gives its document: the name's last path
// segment (a browser or client may send a whole path, with either separator), without control
// characters, bidirectional overrides or invisible marks (which make "evil‮fdp.exe" read as
// "evilexe.pdf"), spaces collapsed, at most MaxTitle characters with its extension kept. It is
// "" when nothing is left.
func FileTitle(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return clip(cleanText(name), MaxTitle)
}

// FileName is a download name: stem cleaned as FileTitle cleans a title, path separators
// replaced with "_", shortened so that stem and suffix (".pdf", "_signed.pdf") make at most
// MaxFileName characters, then suffix. An empty stem is "document".
func FileName(stem, suffix string) string {
	stem = strings.NewReplacer("/", "_", `\`, "_").Replace(stem)
	stem = cleanText(stem)
	if keep := MaxFileName - utf8.RuneCountInString(suffix); utf8.RuneCountInString(stem) > keep {
		stem = strings.TrimRight(string([]rune(stem)[:max(keep, 0)]), " .")
	}
	if strings.Trim(stem, ". ") == "" {
		stem = "document"
	}
	return stem + suffix
}

// invisible are the format characters that reorder or hide text: the bidirectional embeddings,
// overrides, isolates and marks, and the byte order mark.
func invisible(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C, r == 0xFEFF:
		return true
	}
	return false
}

// cleanText drops invalid UTF-8, control characters and invisible marks, turns every run of
// white space into one space and trims the ends.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "")
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || invisible(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// clip shortens s to at most n characters, keeping an extension of up to 8 characters (".pdf")
// after the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	ext := ""
	if i := strings.LastIndexByte(s, '.'); i > 0 && utf8.RuneCountInString(s[i:]) <= 8 && !strings.ContainsRune(s[i:], ' ') {
		ext = s[i:]
	}
	stem := []rune(strings.TrimSuffix(s, ext))
	keep := n - utf8.RuneCountInString(ext)
	return strings.TrimRight(string(stem[:keep]), " .") + ext
}
