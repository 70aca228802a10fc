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
	if tt.str.String() != dt.String() || tt.fp.String() != dt.Fingerprint() ||
		tt.str.n != len(dt.String()) || tt.fp.n != len(dt.Fingerprint()) {
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
			b := &textBuilder{marker: "\x00m:"}
			checkTexts(t, f.Type, b.texts(f.Type))
		}
		if got, want := fingerprint(s), fingerprintReference(s); got != want {
			t.Fatalf("fingerprint(%s) = %#x, reference %#x", s, got, want)
		}
	}
}

// TestFingerprintWork checks that fingerprinting allocates memory linear
// in the schema: four times as deep a schema (the deepest the codec plans
// against a quarter of it) costs about four times as much, where asking
// arrow-go for each node's texts costs about 36 times as much.
func TestFingerprintWork(t *testing.T) {
	for name, nested := range map[string]func(int) arrow.DataType{
		"lists":   nestedLists,
		"structs": func(n int) arrow.DataType { return nestedStructs(n, 4) },
	} {
		var n, ref [2]uint64
		var size [2]int
		for i, depth := range []int{maxDepth / 4, maxDepth} {
			schema := arrow.NewSchema([]arrow.Field{{Name: "deep", Type: nested(depth)}}, nil)
			size[i] = len(ipcSchemaBytes(t, schema))
			var got, want uint64
			n[i] = allocated(func() { got = fingerprint(schema) })
			ref[i] = allocated(func() { want = fingerprintReference(schema) })
			if got != want {
				t.Fatalf("fingerprint %#x, reference %#x", got, want)
			}
			t.Logf("%s, depth %d, %d-byte schema: fingerprint allocates %d bytes (%.1fx), the reference %d (%.1fx)",
				name, depth, size[i], n[i], float64(n[i])/float64(size[i]), ref[i], float64(ref[i])/float64(size[i]))
		}
		grew := float64(n[1]) / float64(n[0])
		t.Logf("%s: 4x the depth, %.1fx the bytes: fingerprint allocates %.1fx, the reference %.1fx",
			name, float64(size[1])/float64(size[0]), grew, float64(ref[1])/float64(ref[0]))
		if grew > 1.5*float64(size[1])/float64(size[0]) {
			t.Errorf("%s: fingerprint allocated %.1fx as much for 4x the depth", name, grew)
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

// TestFingerprintForgedMarker checks that names holding what looks like
// the markers typeTexts puts in its texts (a forged or a colliding one)
// leave the texts arrow-go's.
func TestFingerprintForgedMarker(t *testing.T) {
	const m = "\x00m:"
	names := []string{m, m + "1s\x00", m + "2f\x00", m + "3s", m + "x\x00", m + "1f\x00" + m + "1s\x00"}
	var fields []arrow.Field
	for _, n := range names {
		fields = append(fields, arrow.Field{Name: n, Type: arrow.ListOfField(arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int8})})
	}
	for _, dt := range []arrow.DataType{
		arrow.StructOf(fields...),
		arrow.SparseUnionOf(fields, []arrow.UnionTypeCode{0, 1, 2, 3, 4, 5}),
		arrow.ListOfField(arrow.Field{Name: m + "1s\x00", Type: arrow.StructOf(fields...)}),
	} {
		checkTexts(t, dt, (&textBuilder{marker: m}).texts(dt))
	}
}
