package codec

import (
	"errors"
	"testing"
)

// MaxBlockSize and BlockTargets give what the options set, the defaults
// without them, and refuse invalid options as NewReader and NewWriter do.
func TestOptionValues(t *testing.T) {
	if n, err := MaxBlockSize(); n != DefaultMaxBlockSize || err != nil {
		t.Fatalf("MaxBlockSize() = %d, %v; want the default %d", n, err, DefaultMaxBlockSize)
	}
	if n, err := MaxBlockSize(WithCompression(LZ4), WithMaxBlockSize(1<<20)); n != 1<<20 || err != nil {
		t.Fatalf("MaxBlockSize(1 MiB) = %d, %v", n, err)
	}
	if _, err := MaxBlockSize(WithMaxBlockSize(0)); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("MaxBlockSize(0): %v, want ErrUnsupported", err)
	}
	if rows, size, err := BlockTargets(WithBlockRows(16)); rows != 16 || size != 0 || err != nil {
		t.Fatalf("BlockTargets(rows 16) = %d, %d, %v", rows, size, err)
	}
	if _, _, err := BlockTargets(WithBlockSize(-1)); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("BlockTargets(size -1): %v, want ErrUnsupported", err)
	}
}
