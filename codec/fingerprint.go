package codec

import (
	"encoding/binary"
	"hash/fnv"

	"github.com/apache/arrow-go/v18/arrow"
)

// fingerprint returns a 64-bit hash of what makes a schema's blocks
// readable: field names, nullability and types, extension names and their
// serialized metadata. Schema-level and field metadata are not part of it.
//
// For every type node it hashes arrow-go's String() and Fingerprint() of the
// node, which spell out the whole subtree below it. Asking arrow-go for them
// at each node would rebuild every subtree's text once per ancestor and
// again inside each ancestor's text (work cubic in the depth); typeTexts
// builds each node's texts once, from its children's, so the work is that
// of hashing the texts: the schema's size times at most its depth, which
// the Reader's schema verifier and newPlans bound by maxDepth.
func fingerprint(schema *arrow.Schema) uint64 {
	h := fnv.New64a()
	for _, f := range schema.Fields() {
		writeField(h, f, textsOf(f.Type))
	}
	return h.Sum64()
}

type stringWriter interface {
	Write(p []byte) (int, error)
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
	writeString(h, t.fp)
	writeString(h, t.str)
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
	h.Write([]byte(s))
}

// typeTexts is a node of a type tree with arrow-go's String() and
// Fingerprint() of it, and the same for the nodes below. As an
// arrow.DataType it answers String and Fingerprint from what it holds, so
// a nested type rebuilt over typeTexts children computes its own texts
// without descending further.
type typeTexts struct {
	arrow.DataType // the type itself
	str, fp        string
	kids           []*typeTexts // the types of the NestedType's Fields(), in order
	value          *typeTexts   // a dictionary's value type
	storage        *typeTexts   // an extension type's storage type
}

func (t *typeTexts) String() string      { return t.str }
func (t *typeTexts) Fingerprint() string { return t.fp }

// textsOf returns the texts of dt and of every type below it, each built
// once. Leaf types and extension types give their own texts (an extension
// type's are its author's to make); nested types are rebuilt over their
// children's typeTexts with arrow-go's constructors, so the texts are
// exactly arrow-go's.
func textsOf(dt arrow.DataType) *typeTexts {
	t := &typeTexts{DataType: dt}
	ext, isExt := dt.(arrow.ExtensionType)
	if isExt {
		t.storage = textsOf(ext.StorageType())
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
				t.kids[i] = textsOf(f.Type)
			}
		}
	}
	// with returns fields[i] with its type's texts in place of the type.
	with := func(i int) arrow.Field {
		f := fields[i]
		f.Type = t.kids[i]
		return f
	}
	shallow := dt
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
			shallow = m
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
		t.value = textsOf(d.ValueType)
		shallow = &arrow.DictionaryType{IndexType: d.IndexType, ValueType: t.value, Ordered: d.Ordered}
	}
	t.str, t.fp = shallow.String(), shallow.Fingerprint()
	return t
}
