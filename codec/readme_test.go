package codec_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is for a Go engineer with five minutes: it stays short, and
// what it shows works. These tests read it as that engineer would (issue
// 31 items 12-14). They check its length, its Go code, its two commands
// and its links, not its prose or its tables, so that the figures can be
// replaced freely.

// readmeMaxLines is the README's length limit.
const readmeMaxLines = 250

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fences returns the contents of the README's fenced code blocks of the
// language lang, in order.
func fences(text, lang string) []string {
	var out []string
	re := regexp.MustCompile("(?ms)^```" + lang + "\n(.*?)^```$")
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestREADMELength(t *testing.T) {
	if n := strings.Count(readme(t), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move details into docs/", n, readmeMaxLines)
	}
}

// exampleBodies returns the bodies of the Example functions of the file
// at path, in order, each as source text with one level of indentation
// taken off: what a reader would paste into a function of their own.
func exampleBodies(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || !strings.HasPrefix(fn.Name.Name, "Example") {
			continue
		}
		body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
		var lines []string
		for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
			lines = append(lines, strings.TrimPrefix(l, "\t"))
		}
		bodies = append(bodies, strings.Join(lines, "\n")+"\n")
	}
	return bodies
}

// TestREADMESnippets: every Go snippet of the README is the body of an
// example of example_test.go, in order, so that it compiles and
// its output is checked.
func TestREADMESnippets(t *testing.T) {
	got := fences(readme(t), "go")
	want := exampleBodies(t, "example_test.go")
	if len(got) != len(want) {
		t.Fatalf("README.md has %d Go snippets, example_test.go %d examples: each snippet is an example's body", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("README.md's Go snippet %d is not the body of example %d of example_test.go:\n%s\nwant:\n%s", i+1, i+1, got[i], want[i])
		}
	}
}

// TestREADMECommands: the README's two commands, the main job and the
// tests, are what CI runs.
func TestREADMECommands(t *testing.T) {
	text := readme(t)
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, block := range fences(text, "sh") {
		for _, l := range strings.Split(block, "\n") {
			cmd, _, _ := strings.Cut(l, "#")
			if cmd = strings.TrimSpace(cmd); strings.HasPrefix(cmd, "go run ./cmd/arrowpack bench") || strings.HasPrefix(cmd, "go test ") {
				cmds = append(cmds, cmd)
			}
		}
		if len(cmds) > 0 {
			break // the first block with them: the two commands
		}
	}
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0], "go run ./cmd/arrowpack bench") || !strings.HasPrefix(cmds[1], "go test ") {
		t.Fatalf("the README's first commands are %q, want the main job (go run ./cmd/arrowpack bench) then the tests (go test ...)", cmds)
	}
	for _, c := range cmds {
		if !regexp.MustCompile(`(?m)^run ` + regexp.QuoteMeta(c) + `( |$)`).Match(ci) {
			t.Errorf(".ci/run does not run the README's %q", c)
		}
	}
}

// TestREADMELinks: every relative link of the README reaches a file.
func TestREADMELinks(t *testing.T) {
	for _, m := range regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`).FindAllStringSubmatch(readme(t), -1) {
		target := m[1]
		if strings.Contains(target, "://") {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", target)); err != nil {
			t.Errorf("README.md links to %s: %v", target, err)
		}
	}
}

// TestREADMEResults: the results section holds one table, between the
// markers the lead replaces it within, with the command that made it.
func TestREADMEResults(t *testing.T) {
	text := readme(t)
	start, end := strings.Index(text, "<!-- results: begin"), strings.Index(text, "<!-- results: end -->")
	if start < 0 || end < start {
		t.Fatal("README.md has no results section marked <!-- results: begin ... --> ... <!-- results: end -->")
	}
	section := text[start:end]
	if !regexp.MustCompile("`[^`]*arrowpack bench[^`]*`").MatchString(section) {
		t.Error("the results section does not give the command that made its table")
	}
	if !regexp.MustCompile(`(?m)^\|[-: |]+\|$`).MatchString(section) {
		t.Error("the results section holds no table")
	}
}
