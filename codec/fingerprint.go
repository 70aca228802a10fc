package codec

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// fingerprint returns a 64-bit hash of what makes a schema's blocks
// readable: field names, nullability and types, extension names and their
// serialized metadata. Schema-level and field metadata are not part of it.
//
// For every type node it hashes arrow-go's String() and Fingerprint() of the
// node, each of which spells out the whole subtree below it. Asking arrow-go
// for them at each node rebuilds every subtree's text once per ancestor and
// again inside each ancestor's text: work and memory cubic in the depth.
// Here each node's texts are built once, as pieces between which its
// children's texts go (see typeTexts), and expanded only into the hash:
// memory linear in the schema, and work that of hashing the texts, at most
// the schema's size times its depth, which the Reader's schema verifier and
// newPlans bound by maxDepth.
func fingerprint(schema *arrow.Schema) uint64 {
	h := &hashWriter{h: fnv.New64a()}
	b := &textBuilder{marker: "\x00arrowpack:" + strconv.FormatUint(rand.Uint64(), 36) + ":"}
	for _, f := range schema.Fields() {
		writeField(h, f, b.texts(f.Type))
	}
	return h.h.Sum64()
}

// stringWriter is where texts are written: the hash, or a strings.Builder.
type stringWriter interface {
	Write(p []byte) (int, error)
	WriteString(s string) (int, error)
}

// hashWriter feeds strings to a hash through a buffer: converting each to
// a []byte for Write would allocate a copy of every text hashed.
type hashWriter struct {
	h   hash.Hash64
	buf [512]byte
}

func (w *hashWriter) Write(p []byte) (int, error) { return w.h.Write(p) }

func (w *hashWriter) WriteString(s string) (int, error) {
	n := len(s)
	for len(s) > 0 {
		k := copy(w.buf[:], s)
		w.h.Write(w.buf[:k])
		s = s[k:]
	}
	return n, nil
}

func writeField(h stringWriter, f arrow.Field, t *typeTexts) {
	writeString(h, f.Name)
	if f.Nullable {
		writeString(h, "n")
	} else {
		writeString(h, "N")
	}
	writeType(h, t)
}

// writeType hashes a type. Type fingerprints cover everything but extension
// names and nested field names for some types, which are added here.
func writeType(h stringWriter, t *typeTexts) {
	t.fp.write(h)
	t.str.write(h)
	if ext, ok := t.DataType.(arrow.ExtensionType); ok {
		writeString(h, ext.ExtensionName())
		writeString(h, ext.Serialize())
		writeType(h, t.storage)
	}
	if nt, ok := t.DataType.(arrow.NestedType); ok {
		for i, f := range nt.Fields() {
			writeField(h, f, t.kids[i])
		}
	}
	if t.value != nil {
		writeType(h, t.value)
	}
}

func writeString(h stringWriter, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.WriteString(s)
}

// text is a string held as literal parts with other texts between them:
// parts[0], kids[0], parts[1], kids[1], ... parts[len(kids)].
type text struct {
	n     int // the length of the whole string
	parts []string
	kids  []*text
}

// write hashes the string as writeString would.
func (t *text) write(h stringWriter) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(t.n))
	h.Write(n[:])
	t.expand(h)
}

func (t *text) expand(h stringWriter) {
	for i, p := range t.parts {
		h.WriteString(p)
		if i < len(t.kids) {
			t.kids[i].expand(h)
		}
	}
}

// String returns the whole string.
func (t *text) String() string {
	var b strings.Builder
	t.expand(&b)
	return b.String()
}

// typeTexts is a node of a type tree with arrow-go's String() and
// Fingerprint() of it, and the same for the nodes below. As an
// arrow.DataType it answers String and Fingerprint with a marker naming
// it, so that a nested type rebuilt over typeTexts children gives, through
// arrow-go's own formatting, its texts with a marker where each child's
// text goes.
type typeTexts struct {
	arrow.DataType // the type itself
	id             int
	b              *textBuilder
	str, fp        *text
	kids           []*typeTexts // the types of the NestedType's Fields(), in order
	value          *typeTexts   // a dictionary's value type
	storage        *typeTexts   // an extension type's storage type
}

func (t *typeTexts) String() string { return t.b.mark(t.id, 's') }

// Fingerprint is empty when the type's is: arrow-go's nested fingerprints
// test for that.
func (t *typeTexts) Fingerprint() string {
	if t.fp.n == 0 {
		return ""
	}
	return t.b.mark(t.id, 'f')
}

// textBuilder builds typeTexts. Its marker starts with a NUL and a random
// number, so no name in a schema can forge one; if one should appear
// anyway, split notices and the node's texts are arrow-go's, spelled out.
type textBuilder struct {
	marker string
	nodes  int // typeTexts made: the next one's id
}

func (b *textBuilder) mark(id int, kind byte) string {
	return b.marker + strconv.Itoa(id) + string(kind) + "\x00"
}

// texts returns the texts of dt and of every type below it, each node's
// built once. Leaf and extension types give their own texts (an extension
// type's are its author's to make); nested types are rebuilt over their
// children's typeTexts with arrow-go's constructors, so the texts are
// exactly arrow-go's.
func (b *textBuilder) texts(dt arrow.DataType) *typeTexts {
	t := &typeTexts{DataType: dt, id: b.nodes, b: b}
	b.nodes++
	ext, isExt := dt.(arrow.ExtensionType)
	if isExt {
		t.storage = b.texts(ext.StorageType())
	}
	var fields []arrow.Field
	if nt, ok := dt.(arrow.NestedType); ok {
		fields = nt.Fields()
		if isExt && len(t.storage.kids) == len(fields) {
			// An extension type's fields are its storage's.
			t.kids = t.storage.kids
		} else {
			t.kids = make([]*typeTexts, len(fields))
			for i, f := range fields {
				t.kids[i] = b.texts(f.Type)
			}
		}
	}
	// inner are the typeTexts shallow is built over.
	inner := t.kids
	// with returns fields[i] with its type's texts in place of the type.
	with := func(i int) arrow.Field {
		f := fields[i]
		f.Type = t.kids[i]
		return f
	}
	var shallow arrow.DataType // dt rebuilt over its children's typeTexts
	switch d := dt.(type) {
	case *arrow.ListType:
		shallow = arrow.ListOfField(with(0))
	case *arrow.LargeListType:
		shallow = arrow.LargeListOfField(with(0))
	case *arrow.ListViewType:
		shallow = arrow.ListViewOfField(with(0))
	case *arrow.LargeListViewType:
		shallow = arrow.LargeListViewOfField(with(0))
	case *arrow.FixedSizeListType:
		if d.Len() > 0 {
			shallow = arrow.FixedSizeListOfField(d.Len(), with(0))
		}
	case *arrow.StructType:
		fs := make([]arrow.Field, len(fields))
		for i := range fs {
			fs[i] = with(i)
		}
		shallow = arrow.StructOf(fs...)
	case *arrow.MapType:
		if entries := t.kids[0]; len(entries.kids) == 2 {
			item := d.ItemField()
			m := arrow.MapOfFields(arrow.Field{Type: entries.kids[0]},
				arrow.Field{Type: entries.kids[1], Nullable: item.Nullable})
			m.KeysSorted = d.KeysSorted
			shallow, inner = m, entries.kids
		}
	case arrow.UnionType:
		fs := make([]arrow.Field, len(fields))
		for i := range fs {
			fs[i] = with(i)
		}
		shallow = arrow.UnionOf(d.Mode(), fs, d.TypeCodes())
	case *arrow.RunEndEncodedType:
		r := arrow.RunEndEncodedOf(t.kids[0], t.kids[1])
		r.ValueNullable = d.ValueNullable
		shallow = r
	case *arrow.DictionaryType:
		t.value = b.texts(d.ValueType)
		shallow, inner = &arrow.DictionaryType{IndexType: d.IndexType, ValueType: t.value, Ordered: d.Ordered}, []*typeTexts{t.value}
	}
	if shallow == nil { // a leaf or extension type: its texts are its own
		s, f := dt.String(), dt.Fingerprint()
		t.str, t.fp = &text{n: len(s), parts: []string{s}}, &text{n: len(f), parts: []string{f}}
		return t
	}
	var okStr, okFp bool
	t.str, okStr = b.split(shallow.String(), 's', inner)
	t.fp, okFp = b.split(shallow.Fingerprint(), 'f', inner)
	if !okStr || !okFp {
		// A name holds what looks like a marker: only possible by chance
		// or by knowing the random number. arrow-go spells the texts out,
		// at the cost of the whole subtree's texts for this node.
		s, f := dt.String(), dt.Fingerprint()
		t.str, t.fp = &text{n: len(s), parts: []string{s}}, &text{n: len(f), parts: []string{f}}
	}
	return t
}

// split cuts s, a text made with the markers of the inner nodes of the
// given kind, into parts and those nodes' texts. It reports false if s
// holds anything that is not exactly the markers arrow-go put there: every
// inner node's String marker once, and Fingerprint markers at most once,
// only of nodes whose fingerprint is not empty (for those arrow-go gets "").
func (b *textBuilder) split(s string, kind byte, inner []*typeTexts) (*text, bool) {
	t := &text{n: len(s)}
	index := make(map[int]int, len(inner)) // node id -> place in inner
	for k, n := range inner {
		index[n.id] = k
	}
	seen := make([]bool, len(inner))
	rest := s
	for {
		i := strings.Index(rest, b.marker)
		if i < 0 {
			break
		}
		after := rest[i+len(b.marker):]
		j := strings.IndexByte(after, 0)
		if j < 1 || after[j-1] != kind {
			return nil, false
		}
		id, err := strconv.Atoi(after[:j-1])
		k, ok := index[id]
		if err != nil || !ok || seen[k] {
			return nil, false
		}
		seen[k] = true
		kid := inner[k].str
		if kind == 'f' {
			if kid = inner[k].fp; kid.n == 0 {
				return nil, false
			}
		}
		t.parts = append(t.parts, rest[:i])
		t.kids = append(t.kids, kid)
		t.n += kid.n - (len(b.marker) + j + 1)
		rest = after[j+1:]
	}
	if kind == 's' && len(t.kids) != len(inner) {
		return nil, false
	}
	t.parts = append(t.parts, rest)
	return t, true
}
