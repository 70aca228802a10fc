package codec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// Each compression takes the levels WithCompressionLevel documents and
// refuses the others, naming the range and the constructor called.
func TestCompressionLevels(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, tc := range []struct {
		c      Compression
		hi     int // highest level taken
		levels bool
	}{{None, 0, false}, {LZ4, 9, true}, {Zstd, 22, true}, {MinLZ, 3, true}, {Light, 0, false}} {
		for level := -1; level <= tc.hi+1; level++ {
			_, err := NewEncoder(schema, WithCompression(tc.c), WithCompressionLevel(level))
			ok := level >= 0 && level <= tc.hi
			if ok != (err == nil) {
				t.Fatalf("%s level %d: %v, want accepted %t", tc.c, level, err, ok)
			}
			if ok {
				continue
			}
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "NewEncoder") || !strings.Contains(err.Error(), tc.c.String()) {
				t.Fatalf("%s level %d: %v, want ErrUnsupported naming NewEncoder and %s", tc.c, level, err, tc.c)
			}
			if want := fmt.Sprintf("to %d", tc.hi); tc.levels && !strings.Contains(err.Error(), want) {
				t.Fatalf("%s level %d: %q does not say the range", tc.c, level, err)
			}
		}
		_, err := NewWriter(&bytes.Buffer{}, schema, WithCompression(tc.c), WithCompressionLevel(99))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "NewWriter") || strings.Contains(err.Error(), "NewEncoder") {
			t.Fatalf("NewWriter with %s level 99: %v, want ErrUnsupported naming NewWriter", tc.c, err)
		}
	}
	// A Decoder and a Reader take the Writer's options, level and all.
	if _, err := NewDecoder(schema, WithCompression(Zstd), WithCompressionLevel(19)); err != nil {
		t.Fatalf("NewDecoder with a level: %v", err)
	}
}

// An invalid option given to NewWriter is reported as NewWriter's, and
// WithBlockRows refuses a negative count while 0 leaves coalescing off.
func TestNewWriterOptionErrors(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, o := range []Option{WithBlockRows(-1), WithBlockSize(-1), WithMinSavings(nanf())} {
		_, err := NewWriter(&bytes.Buffer{}, schema, o)
		if !errors.Is(err, ErrUnsupported) || !strings.HasPrefix(err.Error(), "NewWriter: ") {
			t.Fatalf("NewWriter with a bad option: %v, want ErrUnsupported starting NewWriter", err)
		}
	}
	w, err := NewWriter(&bytes.Buffer{}, schema, WithBlockRows(0))
	if err != nil || w.maxRows != 0 || w.maxSize != 0 {
		t.Fatalf("WithBlockRows(0): %v, coalescing to %d rows, %d bytes; want it off", err, w.maxRows, w.maxSize)
	}
}

func nanf() float64 {
	zero := 0.0
	return zero / zero
}

// ParseCompression reads back what String prints, in any case, and
// refuses anything else; a value naming no compression prints as a Go
// value and does not parse.
func TestParseCompression(t *testing.T) {
	for c := None; c <= Light; c++ {
		for _, s := range []string{c.String(), strings.ToUpper(c.String())} {
			got, err := ParseCompression(s)
			if err != nil || got != c {
				t.Fatalf("ParseCompression(%q) = %v, %v; want %d", s, got, err, c)
			}
		}
	}
	if s := Compression(9).String(); s != "Compression(9)" {
		t.Fatalf("Compression(9).String() = %q", s)
	}
	for _, s := range []string{"", "brotli", "Compression(9)", " lz4", "lz4hc"} {
		if _, err := ParseCompression(s); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "none, lz4, zstd, minlz, light") {
			t.Fatalf("ParseCompression(%q): %v, want ErrUnsupported listing the names", s, err)
		}
	}
	_, err := NewEncoder(arrow.NewSchema(nil, nil), WithCompression(9))
	if !errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "compression compression") || !strings.Contains(err.Error(), "unknown compression 9") {
		t.Fatalf("NewEncoder(compression 9): %v", err)
	}
}
