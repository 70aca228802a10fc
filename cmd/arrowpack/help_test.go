package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestHelpListsEveryCompression: every command that takes -compression
// lists every compression it accepts, light included, in its usage line
// and its flag's help; and accepts each it lists (issue 31 item 7).
func TestHelpListsEveryCompression(t *testing.T) {
	for _, name := range []string{"convert", "get", "put", "serve", "bench"} {
		code, out, stderr := runCmd(t, "help", name)
		if code != 0 {
			t.Fatalf("help %s: status %d: %s", name, code, stderr)
		}
		usage, _, _ := strings.Cut(out, "\n")
		flagHelp := regexp.MustCompile(`(?s)\n  -compression [^\n]*\n(\s{4,}[^\n]*\n)*`).FindString(out)
		for _, c := range []string{"none", "lz4", "zstd", "minlz", "light"} {
			if !strings.Contains(flagHelp, c) {
				t.Errorf("help %s: the -compression flag's help does not list %s:\n%s", name, c, flagHelp)
			}
			if name != "bench" && !strings.Contains(usage, c) {
				t.Errorf("help %s: the usage line does not list %s: %s", name, c, usage)
			}
			if _, err := parseCompression(c); err != nil {
				t.Errorf("%s is listed but refused: %v", c, err)
			}
		}
	}
}
