package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// What the command prints from a file or a server (values, field names,
// metadata, stream paths, messages naming them) can hold bytes that drive
// a terminal: ESC sequences, BEL, C1 controls such as CSI (U+009B), bidi
// overrides (U+202E). Everything it prints from such text passes through
// escapeText (tables, schemas, messages) or appendJSONText (JSON), which
// keep what shows as itself and escape the rest.

// shows reports whether r prints as itself, moving the cursor only
// forward: letters, marks, numbers, punctuation, symbols and spaces
// (unicode.IsGraphic), and the zero-width joiner and non-joiner that emoji
// and Indic scripts are written with. Controls, format characters (bidi
// overrides and marks among them), line and paragraph separators, private
// use and unassigned code points do not.
func shows(r rune) bool {
	return unicode.IsGraphic(r) || r == '\u200c' || r == '\u200d'
}

// escapeText returns s with every character that does not show as itself
// escaped as Go writes it: \t, \n, \r, \x1b, \u009b, \U000e0001, and each
// byte that is not UTF-8 as \xff. Text that shows is returned as it is.
func escapeText(s string) string {
	if isShown(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case shows(r):
			b.WriteString(s[i : i+n])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

// isShown reports whether every character of s shows as itself (and s is
// UTF-8).
func isShown(s string) bool {
	for i, r := range s {
		if !shows(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return false
		}
	}
	return true
}

// appendJSONText appends JSON text as encoding/json writes it (which
// escapes the controls below U+0020 and U+2028/9 inside strings, but not
// DEL, C1 controls or bidi overrides) with every character that does not
// show as itself written as a \u escape, so that the JSON means the same
// and prints safely. Newlines are kept: encoding/json writes them only
// between values, when it indents.
func appendJSONText(b, text []byte) []byte {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			// encoding/json writes invalid UTF-8 as U+FFFD itself; do the
			// same rather than pass a lone byte (0x9b is CSI) on.
			b = append(b, `\ufffd`...)
		case shows(r) || r == '\n':
			b = append(b, text[i:i+n]...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			b = fmt.Appendf(b, `\u%04x\u%04x`, r1, r2)
		default:
			b = fmt.Appendf(b, `\u%04x`, r)
		}
		i += n
	}
	return b
}

// displayWidth returns the columns s takes on a terminal: 2 for a wide or
// fullwidth character (CJK, most emoji), 0 for a combining mark, a format
// character or a character joined to the one before by a zero-width
// joiner (the parts of an emoji sequence), 1 for the others.
func displayWidth(s string) int {
	n := 0
	var c columns
	for _, r := range s {
		n += c.width(r)
	}
	return n
}

// columns tells the width of each character of a text in turn
// (displayWidth): it remembers whether the last was a zero-width joiner.
type columns struct{ joined bool }

func (c *columns) width(r rune) int {
	switch {
	case c.joined:
		c.joined = false
		return 0
	case r == '\u200d':
		c.joined = true
		return 0
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// cutToWidth returns the longest start of s that takes at most w columns
// (displayWidth), cut only before a character that takes columns, so that
// the marks and joined characters that follow one stay with it.
func cutToWidth(s string, w int) string {
	n := 0
	var c columns
	for i, r := range s {
		cw := c.width(r)
		if cw > 0 && n+cw > w {
			return s[:i]
		}
		n += cw
	}
	return s
}
