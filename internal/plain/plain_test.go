package plain

import (
	"bytes"
	"testing"
)

// TestTranspose checks the definition on values whose bytes name their
// place, and that Untranspose undoes it.
func TestTranspose(t *testing.T) {
	src := []byte{0x00, 0x01, 0x10, 0x11, 0x20, 0x21} // 3 values of 2 bytes
	want := []byte{0x00, 0x10, 0x20, 0x01, 0x11, 0x21}
	got := Transpose(src, 2)
	if !bytes.Equal(got, want) {
		t.Fatalf("Transpose = % x, want % x", got, want)
	}
	if back := Untranspose(got, 2); !bytes.Equal(back, src) {
		t.Fatalf("Untranspose = % x, want % x", back, src)
	}
}
