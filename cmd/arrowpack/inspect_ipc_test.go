package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectIPCCompression: inspect tells the compression and the sizes of
// each batch of an IPC stream or file, and its totals add up the blocks'
// (issue 19 item 10).
func TestInspectIPCCompression(t *testing.T) {
	dir := t.TempDir()
	src, _ := testStream(t, dir)
	for _, tc := range []struct{ name, comp string }{
		{"n.arrows", "none"}, {"l.arrows", "lz4"}, {"z.arrows", "zstd"},
		{"n.arrow", "none"}, {"l.arrow", "lz4"}, {"z.arrow", "zstd"},
	} {
		path := filepath.Join(dir, tc.name)
		if code, _, stderr := runCmd(t, "convert", "-compression", tc.comp, src, path); code != 0 {
			t.Fatal(stderr)
		}
		code, out, stderr := runCmd(t, "inspect", "-json", path)
		var rep inspectReport
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("%s: status %d, %v: %s", tc.name, code, err, stderr)
		}
		if len(rep.Blocks) != 3 {
			t.Fatalf("%s: %d blocks, want 3", tc.name, len(rep.Blocks))
		}
		var stored, raw int64
		for _, b := range rep.Blocks {
			if b.Compression != tc.comp || b.Stored <= 0 || b.Raw < 0 {
				t.Errorf("%s: block %+v, want compression %s and sizes", tc.name, b, tc.comp)
			}
			stored += b.Stored
			raw += b.Raw
		}
		if rep.Stored != stored || rep.Raw != raw {
			t.Errorf("%s: totals %d stored, %d raw; the blocks add up to %d, %d", tc.name, rep.Stored, rep.Raw, stored, raw)
		}
		code, out, _ = runCmd(t, "inspect", path)
		if lines := strings.Split(out, "\n"); code != 0 || !strings.Contains(out, " "+tc.comp+" ") ||
			!strings.Contains(out, "bytes stored") || len(lines) < 4 {
			t.Errorf("%s: inspect does not show the compression %s and the sizes:\n%s", tc.name, tc.comp, out)
		}
	}
}

// TestBlockTotals: a total is unknown (-1) when a block's is, not a sum
// that leaves it out; a stopped block counts for nothing.
func TestBlockTotals(t *testing.T) {
	rows, stored, raw := blockTotals([]blockReport{{Rows: 2, Stored: 10, Raw: -1}, {Rows: 3, Stored: 5, Raw: 7}, {Stored: -1, Raw: -1, Status: "stopped"}})
	if rows != 5 || stored != 15 || raw != -1 {
		t.Errorf("totals %d rows, %d stored, %d raw; want 5, 15, -1", rows, stored, raw)
	}
}
