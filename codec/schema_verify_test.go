package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// ipcSchemaBytes serializes schema the way a Writer does.
func ipcSchemaBytes(t testing.TB, schema *arrow.Schema) []byte {
	t.Helper()
	var b bytes.Buffer
	w := ipc.NewWriter(&b, ipc.WithSchema(schema))
	if err := w.Close(); err != nil {
		t.Fatalf("serializing %s: %v", schema, err)
	}
	return b.Bytes()
}

// nestedLists returns list<list<...<int32>>> with n list levels.
func nestedLists(n int) arrow.DataType {
	var dt arrow.DataType = arrow.PrimitiveTypes.Int32
	for range n {
		dt = arrow.ListOf(dt)
	}
	return dt
}

// validSchemas are schemas of every type the codec supports: each type
// alone, all of them in one, random nested schemas, metadata at every
// level, and the deepest nesting the codec plans.
func validSchemas() []*arrow.Schema {
	var out []*arrow.Schema
	var all []arrow.Field
	for i, dt := range randbatch.AllTypes() {
		f := arrow.Field{Name: "c" + string(rune('a'+i%26)), Type: dt, Nullable: i%2 == 0}
		all = append(all, f)
		out = append(out, arrow.NewSchema([]arrow.Field{f}, nil))
	}
	out = append(out, arrow.NewSchema(all, nil))
	r := rand.New(rand.NewPCG(9, 2026))
	for range 300 {
		out = append(out, randbatch.RandomSchema(r, 1+r.IntN(5), r.IntN(6)))
	}
	md := arrow.NewMetadata([]string{"k", "", "unicode ✓"}, []string{"v", "empty key", strings.Repeat("x", 300)})
	out = append(out, arrow.NewSchema([]arrow.Field{
		{Name: "m", Type: arrow.StructOf(arrow.Field{Name: "in", Type: arrow.BinaryTypes.String, Metadata: md}), Metadata: md},
		{Name: "", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Berlin"}},
	}, &md))
	out = append(out, arrow.NewSchema([]arrow.Field{{Name: "deep", Type: nestedLists(maxDepth)}}, nil))
	out = append(out, arrow.NewSchema(nil, nil))
	return out
}

// TestVerifySchemaAcceptsValid checks that the verifier rejects no schema
// arrow-go writes for a type the codec supports, and that the schema read
// back is the one written.
func TestVerifySchemaAcceptsValid(t *testing.T) {
	for _, schema := range validSchemas() {
		if _, err := NewEncoder(schema); err != nil {
			t.Fatalf("test schema %s: %v", schema, err)
		}
		b := ipcSchemaBytes(t, schema)
		if err := verifySchemaMessage(b); err != nil {
			t.Fatalf("schema %s rejected: %v", schema, err)
		}
		got, err := ReadSchema(b)
		if err != nil {
			// Only arrow-go's own refusal is excused: it cannot read back
			// a dictionary of an extension type, which it writes.
			if ir, ierr := ipc.NewReader(bytes.NewReader(b)); ierr == nil {
				ir.Release()
				t.Fatalf("schema %s: %v, which arrow-go alone reads", schema, err)
			}
			t.Logf("arrow-go cannot read back its own %s: %v", schema, err)
			continue
		}
		if !got.Equal(schema) || fingerprint(got) != fingerprint(schema) {
			t.Fatalf("schema %s read back as %s", schema, got)
		}
	}
}

// TestVerifySchemaGoldenStreams checks the schemas of the committed golden
// streams pass the verifier.
func TestVerifySchemaGoldenStreams(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "golden", "*.apk"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden streams: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n := binary.LittleEndian.Uint64(data[8:])
		if err := verifySchemaMessage(data[streamHeaderSize : streamHeaderSize+n]); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestVerifySchemaHandBuilt checks that the hand builder's schema is the
// one arrow-go reads, so that the hostile variants below differ from a
// valid schema only in what each plants.
func TestVerifySchemaHandBuilt(t *testing.T) {
	sch := ipcFrame(fbLayout(fbMessageNode(validFBSchema(), 0)))
	got, err := ReadSchema(sch)
	if err != nil {
		t.Fatal(err)
	}
	want := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		)},
	}, &arrow.Metadata{})
	md := arrow.NewMetadata([]string{"key"}, []string{"value"})
	want = arrow.NewSchema(want.Fields(), &md)
	if !got.Equal(want) || !got.Metadata().Equal(want.Metadata()) {
		t.Fatalf("hand-built schema read as %s, want %s", got, want)
	}
}

// validFBSchema is a Schema table of
// a: int32, s: struct<x: int64 not null, l: list<item: utf8>>
// with schema metadata key=value.
func validFBSchema() *fbNode {
	return fbSchemaNode([]*fbNode{
		fbFieldNode("a", true, fbTypeInt, fbInt(32, true)),
		fbFieldNode("s", false, fbTypeStruct, fbEmpty(),
			fbFieldNode("x", false, fbTypeInt, fbInt(64, true)),
			fbFieldNode("l", true, fbTypeList, fbEmpty(),
				fbFieldNode("item", true, fbTypeUtf8, fbEmpty()))),
	}, fbKV("key", "value"))
}

// setChildren replaces the children of a Field node.
func setChildren(f *fbNode, children ...*fbNode) {
	for i := range f.fields {
		if f.fields[i].slot == slotFieldChildren {
			f.fields[i].ref = fbRefs(children...)
		}
	}
}

// setField replaces (or adds) a field of a table node.
func setField(n *fbNode, f fbField) {
	for i := range n.fields {
		if n.fields[i].slot == f.slot {
			n.fields[i] = f
			return
		}
	}
	n.fields = append(n.fields, f)
}

func u32p(v uint32) *uint32 { return &v }

// message lays out a schema message around schema and frames it.
func message(schema *fbNode) []byte {
	return ipcFrame(fbLayout(fbMessageNode(schema, 0)))
}

// hostileSchemas are schema IPC streams built to break a reader that
// trusts them, each planting one defect in otherwise sound structure.
func hostileSchemas() map[string][]byte {
	m := map[string][]byte{}

	self := fbFieldNode("s", true, fbTypeStruct, fbEmpty())
	setChildren(self, self)
	m["child is its own parent"] = message(fbSchemaNode([]*fbNode{self}))

	// A table pointing back at its grandparent.
	outer := fbFieldNode("o", true, fbTypeStruct, fbEmpty())
	inner := fbFieldNode("i", true, fbTypeStruct, fbEmpty())
	setChildren(outer, inner)
	setChildren(inner, outer)
	m["cycle of two fields"] = message(fbSchemaNode([]*fbNode{outer}))

	// Each level points twice at the one table below: 2^20 paths.
	dag := fbFieldNode("leaf", true, fbTypeInt, fbInt(32, true))
	for range 20 {
		dag = fbFieldNode("d", true, fbTypeStruct, fbEmpty(), dag, dag)
	}
	m["shared subtrees, 2^20 paths"] = message(fbSchemaNode([]*fbNode{dag}))

	shared := fbInt(32, true)
	m["two fields share a type table"] = message(fbSchemaNode([]*fbNode{
		fbFieldNode("a", true, fbTypeInt, shared), fbFieldNode("b", true, fbTypeInt, shared)}))

	m["deeper than the codec plans"] = message(fbSchemaNode([]*fbNode{deepFBLists(maxDepth + 1)}))

	dict := fbFieldNode("d", true, fbTypeList, fbEmpty(), deepFBLists(maxDepth))
	setField(dict, reff(slotFieldDictionary, fbTableNode(i64f(slotDictID, 0), reff(slotDictIndexType, fbInt(32, true)))))
	m["deeper than the codec plans below a dictionary"] = message(fbSchemaNode([]*fbNode{dict}))

	for _, body := range []int64{1 << 31, 1 << 62, -1} {
		m["body length "+strconv.FormatInt(body, 10)] = ipcFrame(fbLayout(fbMessageNode(validFBSchema(), body)))
	}

	fields := fbRefs(fbFieldNode("a", true, fbTypeInt, fbInt(32, true)))
	fields.count = u32p(1<<30 - 1)
	m["huge fields vector count"] = message(fbTableNode(reff(slotSchemaFields, fields)))

	for _, n := range []uint32{0x7FFFFFF0, 0x80000000, 1 << 20} {
		b := message(validFBSchema())
		binary.LittleEndian.PutUint32(b[4:], n)
		m["metadata length "+strconv.FormatUint(uint64(n), 10)] = b
	}
	old := message(validFBSchema())[4:] // the framing before Arrow 0.15
	binary.LittleEndian.PutUint32(old, 0x7FFFFFF0)
	m["old-framing metadata length"] = old

	kvs := fbRefs(fbKV("k", "v"))
	kvs.count = u32p(1 << 28)
	s := fbSchemaNode(nil)
	setField(s, reff(slotSchemaMetadata, kvs))
	m["custom metadata vector too long"] = message(s)

	key := fbString("k")
	key.count = u32p(1 << 30)
	m["custom metadata key too long"] = message(fbSchemaNode(nil, fbTableNode(reff(slotKey, key), reff(slotValue, fbString("v")))))

	f := fbFieldNode("a", true, fbTypeInt, fbInt(32, true))
	setField(f, i32f(slotFieldType, 1<<20)) // a uoffset to past the end
	m["type offset out of range"] = message(fbSchemaNode([]*fbNode{f}))

	f = fbFieldNode("a", true, fbTypeInt, fbInt(32, true))
	setField(f, i32f(slotFieldType, -64)) // wraps to a table before it
	m["type offset pointing backwards"] = message(fbSchemaNode([]*fbNode{f}))

	misaligned := fbInt(32, true)
	misaligned.shift = 2
	m["misaligned type table"] = message(fbSchemaNode([]*fbNode{fbFieldNode("a", true, fbTypeInt, misaligned)}))

	name := fbString("name")
	name.shift = 1
	m["misaligned string"] = message(fbSchemaNode([]*fbNode{fbTableNode(reff(slotFieldName, name))}))

	schema := validFBSchema()
	meta := fbLayout(fbMessageNode(schema, 0))
	binary.LittleEndian.PutUint32(meta[schema.pos:], 0x7FFFFFF0)
	m["vtable out of range"] = ipcFrame(meta)

	nul := fbString("abc")
	meta = fbLayout(fbMessageNode(fbSchemaNode([]*fbNode{fbFieldNode("x", true, fbTypeNull, fbEmpty())}, fbTableNode(reff(slotKey, nul))), 0))
	meta[nul.pos+4+3] = 'd'
	m["string without its NUL"] = ipcFrame(meta)

	m["overlapping strings"] = overlappingNames(500)

	msg := fbMessageNode(validFBSchema(), 0)
	setField(msg, u8f(slotMessageHeaderType, 3))
	m["record batch message"] = ipcFrame(fbLayout(msg))

	m["trailing bytes"] = append(message(validFBSchema()), 1, 2, 3, 4, 5, 6, 7, 8)
	m["empty IPC stream"] = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}
	m["unknown type tag"] = message(fbSchemaNode([]*fbNode{fbFieldNode("a", true, 99, fbEmpty())}))
	m["timestamp unit out of range"] = message(fbSchemaNode([]*fbNode{fbFieldNode("t", true, fbTypeTimestamp, fbTableNode(i16f(0, 7)))}))
	m["fixed-size list of size 0"] = message(fbSchemaNode([]*fbNode{fbFieldNode("l", true, fbTypeFixedSizeList, fbTableNode(i32f(0, 0)),
		fbFieldNode("item", true, fbTypeNull, fbEmpty()))}))
	m["union type id out of range"] = message(fbSchemaNode([]*fbNode{fbFieldNode("u", true, fbTypeUnion,
		fbTableNode(i16f(0, 0), reff(1, fbScalars(4, binary.LittleEndian.AppendUint32(nil, 200)))),
		fbFieldNode("a", true, fbTypeNull, fbEmpty()))}))
	m["list with two children"] = message(fbSchemaNode([]*fbNode{fbFieldNode("l", true, fbTypeList, fbEmpty(),
		fbFieldNode("a", true, fbTypeNull, fbEmpty()), fbFieldNode("b", true, fbTypeNull, fbEmpty()))}))
	m["dictionary without an index type"] = message(fbSchemaNode([]*fbNode{fbTableNode(
		reff(slotFieldName, fbString("d")), u8f(slotFieldTypeType, fbTypeUtf8), reff(slotFieldType, fbEmpty()),
		reff(slotFieldDictionary, fbTableNode(i64f(slotDictID, 0))))}))
	return m
}

// deepFBLists returns a Field node of n nested lists of int32.
func deepFBLists(n int) *fbNode {
	f := fbFieldNode("item", true, fbTypeInt, fbInt(32, true))
	for range n {
		f = fbFieldNode("item", true, fbTypeList, fbEmpty(), f)
	}
	return f
}

// overlappingNames is a schema of n fields whose names each claim every
// byte up to the end of the message: distinct strings, but together n times
// the message's size, which a reader copying names would allocate.
func overlappingNames(n int) []byte {
	var fields, names []*fbNode
	for range n {
		name := fbString("n")
		names = append(names, name)
		fields = append(fields, fbFieldNode("", true, fbTypeNull, fbEmpty()))
		setField(fields[len(fields)-1], reff(slotFieldName, name))
	}
	meta := fbLayout(fbMessageNode(fbSchemaNode(fields), 0))
	meta = append(meta, make([]byte, 8)...) // a NUL at the end for every name
	for _, name := range names {
		binary.LittleEndian.PutUint32(meta[name.pos:], uint32(len(meta)-name.pos-5))
	}
	return ipcFrame(meta)
}

// allocated returns the bytes f allocated on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocBound is what reading a hostile stream of n bytes may allocate: a
// small constant times its size plus a fixed slack for the Reader itself.
func allocBound(n int) uint64 { return uint64(4*n + 64<<10) }

// TestVerifySchemaHostile feeds every hostile schema to NewReader, alone
// and as the second of two concatenated streams, and checks each is an
// ErrCorrupt error reached with memory bounded by the input.
func TestVerifySchemaHostile(t *testing.T) {
	first := writeStream(t, arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil), nil)
	for name, sch := range hostileSchemas() {
		t.Run(name, func(t *testing.T) {
			if err := verifySchemaMessage(sch); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("verifier: %v, want ErrCorrupt", err)
			}
			stream := streamWithSchema(sch)
			var err error
			n := allocated(func() { _, err = NewReader(bytes.NewReader(stream)) })
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("NewReader: %v, want ErrCorrupt", err)
			}
			if n > allocBound(len(stream)) {
				t.Errorf("NewReader allocated %d bytes for a %d-byte stream", n, len(stream))
			}
			t.Logf("%v (%d bytes, %d allocated)", err, len(stream), n)

			two := append(append([]byte(nil), first...), stream...)
			r, err := NewReader(bytes.NewReader(two))
			if err != nil {
				t.Fatal(err)
			}
			var more bool
			n = allocated(func() { more = r.Next() })
			if more || !errors.Is(r.Err(), ErrCorrupt) {
				t.Fatalf("second stream: Next %v, Err %v, want ErrCorrupt", more, r.Err())
			}
			if n > allocBound(len(stream)) {
				t.Errorf("Next allocated %d bytes for a %d-byte second stream", n, len(stream))
			}
		})
	}
}

// TestReadSchemaMemory checks that reading the header of a stream of a
// large valid schema (the deepest the codec plans, and a wide one) costs
// memory linear in the schema's size, with the depth bound as the factor.
func TestReadSchemaMemory(t *testing.T) {
	wide := make([]arrow.Field, 10000)
	for i := range wide {
		wide[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: arrow.PrimitiveTypes.Int32, Nullable: true}
	}
	for _, schema := range []*arrow.Schema{
		arrow.NewSchema([]arrow.Field{{Name: "deep", Type: nestedLists(maxDepth)}}, nil),
		arrow.NewSchema([]arrow.Field{{Name: "deep", Type: nestedStructs(maxDepth, 4)}}, nil),
		arrow.NewSchema(wide, nil),
	} {
		stream := writeStream(t, schema, nil)
		var err error
		n := allocated(func() { _, err = NewReader(bytes.NewReader(stream)) })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d-byte stream: NewReader allocated %d bytes (%.1fx)", len(stream), n, float64(n)/float64(len(stream)))
		if n > uint64(2*(maxDepth+1)*len(stream)+64<<10) {
			t.Errorf("NewReader allocated %d bytes for a %d-byte stream", n, len(stream))
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
