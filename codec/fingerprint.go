package codec

import (
	"encoding/binary"
	"hash"
	"hash/fnv"

	"github.com/apache/arrow-go/v18/arrow"
)

// fingerprint returns a 64-bit hash of what makes a schema's blocks
// readable: field names, nullability and types with their parameters,
// extension names and their serialized metadata. Schema-level and field
// metadata are not part of it. FORMAT.md gives the exact bytes hashed.
//
// Each type node adds only its own name and parameters and then its
// children, so the work is linear in the schema's size, however deep or
// wide. (arrow-go's String and Fingerprint spell out a node's whole subtree
// at every level, which is quadratic in the depth; they are not used.)
func fingerprint(schema *arrow.Schema) uint64 {
	h := fnv.New64a()
	hashSchema(h, schema)
	return h.Sum64()
}

func hashSchema(h hash.Hash64, schema *arrow.Schema) {
	for _, f := range schema.Fields() {
		hashField(h, f)
	}
}

func hashField(h hash.Hash64, f arrow.Field) {
	hashString(h, f.Name)
	if f.Nullable {
		hashString(h, "n")
	} else {
		hashString(h, "N")
	}
	hashType(h, f.Type)
}

// hashType adds the type's id, its parameters, then its child fields.
func hashType(h hash.Hash64, dt arrow.DataType) {
	hashString(h, dt.ID().String())
	switch t := dt.(type) {
	case arrow.ExtensionType:
		hashString(h, t.ExtensionName())
		hashString(h, t.Serialize())
		hashType(h, t.StorageType())
		return // the storage type holds the fields
	case *arrow.DictionaryType:
		hashBool(h, t.Ordered)
		hashType(h, t.IndexType)
		hashType(h, t.ValueType)
	case *arrow.TimestampType:
		hashUint(h, uint64(t.Unit))
		hashString(h, t.TimeZone)
	case *arrow.Time32Type:
		hashUint(h, uint64(t.Unit))
	case *arrow.Time64Type:
		hashUint(h, uint64(t.Unit))
	case *arrow.DurationType:
		hashUint(h, uint64(t.Unit))
	case arrow.DecimalType:
		hashUint(h, uint64(t.GetPrecision()))
		hashUint(h, uint64(t.GetScale()))
	case *arrow.FixedSizeBinaryType:
		hashUint(h, uint64(t.ByteWidth))
	case *arrow.FixedSizeListType:
		hashUint(h, uint64(t.Len()))
	case *arrow.MapType:
		hashBool(h, t.KeysSorted)
	case arrow.UnionType:
		hashUint(h, uint64(t.Mode()))
		codes := t.TypeCodes()
		hashUint(h, uint64(len(codes)))
		for _, c := range codes {
			hashUint(h, uint64(c))
		}
	}
	if nt, ok := dt.(arrow.NestedType); ok {
		fields := nt.Fields()
		hashUint(h, uint64(len(fields)))
		for _, f := range fields {
			hashField(h, f)
		}
	}
}

// hashString adds s preceded by its length.
func hashString(h hash.Hash64, s string) {
	hashUint(h, uint64(len(s)))
	h.Write([]byte(s))
}

// hashUint adds v as 8 little-endian bytes.
func hashUint(h hash.Hash64, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	h.Write(b[:])
}

func hashBool(h hash.Hash64, v bool) {
	if v {
		hashUint(h, 1)
	} else {
		hashUint(h, 0)
	}
}
