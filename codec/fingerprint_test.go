package codec

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// fingerprintReference is fingerprint as first written, asking arrow-go
// for every node's texts: the value fingerprint must keep (blocks on disk
// carry it), at a cost cubic in the depth.
func fingerprintReference(schema *arrow.Schema) uint64 {
	h := fnv.New64a()
	var field func(f arrow.Field)
	var typ func(dt arrow.DataType)
	str := func(s string) {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(s))))
		h.Write([]byte(s))
	}
	field = func(f arrow.Field) {
		str(f.Name)
		if f.Nullable {
			str("n")
		} else {
			str("N")
		}
		typ(f.Type)
	}
	typ = func(dt arrow.DataType) {
		str(dt.Fingerprint())
		str(dt.String())
		if ext, ok := dt.(arrow.ExtensionType); ok {
			str(ext.ExtensionName())
			str(ext.Serialize())
			typ(ext.StorageType())
		}
		if nt, ok := dt.(arrow.NestedType); ok {
			for _, f := range nt.Fields() {
				field(f)
			}
		}
		if d, ok := dt.(*arrow.DictionaryType); ok {
			typ(d.ValueType)
		}
	}
	for _, f := range schema.Fields() {
		field(f)
	}
	return h.Sum64()
}

// checkTexts checks every node's texts against arrow-go's own.
func checkTexts(t *testing.T, dt arrow.DataType, tt *typeTexts) {
	t.Helper()
	if tt.str != dt.String() || tt.fp != dt.Fingerprint() {
		t.Fatalf("texts of %s: %q %q, want %q %q", dt, tt.str, tt.fp, dt.String(), dt.Fingerprint())
	}
	if nt, ok := dt.(arrow.NestedType); ok {
		for i, f := range nt.Fields() {
			checkTexts(t, f.Type, tt.kids[i])
		}
	}
	if d, ok := dt.(*arrow.DictionaryType); ok {
		checkTexts(t, d.ValueType, tt.value)
	}
	if ext, ok := dt.(arrow.ExtensionType); ok {
		checkTexts(t, ext.StorageType(), tt.storage)
	}
}

// TestFingerprintUnchanged checks fingerprint against the reference on
// every type, random nested schemas and the deepest nesting planned.
func TestFingerprintUnchanged(t *testing.T) {
	schemas := validSchemas()
	r := rand.New(rand.NewPCG(14, 9))
	for range 500 {
		schemas = append(schemas, randbatch.RandomSchema(r, 1+r.IntN(4), 1+r.IntN(8)))
	}
	for _, s := range schemas {
		for _, f := range s.Fields() {
			checkTexts(t, f.Type, textsOf(f.Type))
		}
		if got, want := fingerprint(s), fingerprintReference(s); got != want {
			t.Fatalf("fingerprint(%s) = %#x, reference %#x", s, got, want)
		}
	}
}

// TestFingerprintWork checks that fingerprinting the deepest schema the
// codec plans allocates within a bound linear in the schema's serialized
// size (times the depth bound), where asking arrow-go for each node's
// texts allocates many times more.
func TestFingerprintWork(t *testing.T) {
	for _, schema := range []*arrow.Schema{
		arrow.NewSchema([]arrow.Field{{Name: "deep", Type: nestedLists(maxDepth)}}, nil),
		arrow.NewSchema([]arrow.Field{{Name: "deep", Type: nestedStructs(maxDepth, 4)}}, nil),
	} {
		size := len(ipcSchemaBytes(t, schema))
		var got, want uint64
		n := allocated(func() { got = fingerprint(schema) })
		ref := allocated(func() { want = fingerprintReference(schema) })
		if got != want {
			t.Fatalf("fingerprint %#x, reference %#x", got, want)
		}
		t.Logf("%d-byte schema: fingerprint allocates %d bytes (%.1fx), the reference %d (%.1fx)",
			size, n, float64(n)/float64(size), ref, float64(ref)/float64(size))
		if n > uint64(2*(maxDepth+1)*size) {
			t.Errorf("fingerprint of a %d-byte schema allocated %d bytes", size, n)
		}
	}
}

// nestedStructs returns n levels of structs, each holding width int32
// fields and the next level.
func nestedStructs(n, width int) arrow.DataType {
	var dt arrow.DataType = arrow.PrimitiveTypes.Int32
	for range n {
		fs := []arrow.Field{{Name: "next", Type: dt, Nullable: true}}
		for i := range width {
			fs = append(fs, arrow.Field{Name: "f" + string(rune('a'+i)), Type: arrow.PrimitiveTypes.Int32})
		}
		dt = arrow.StructOf(fs...)
	}
	return dt
}
