package codec

import (
	"encoding/binary"
)

// This file builds Arrow IPC schema messages by hand, object by object, the
// way an attacker would: every table, vector and string is a node whose
// references are patched in after layout, so a test can plant a table that
// points back at itself, children shared by several parents, counts and
// lengths that lie, offsets out of range or misaligned, while everything
// else stays well formed.

// fbNode is one flatbuffer object: a table, a vector of references, a
// vector of scalars or a string.
type fbNode struct {
	kind   fbKind
	fields []fbField // table
	refs   []*fbNode // vector of uoffsets
	raw    []byte    // vector of scalars (elemSize bytes each) or string bytes
	elem   int       // scalar vector: element size; 0 for tables and refs
	isStr  bool      // string: raw plus a NUL
	count  *uint32   // overrides the length a vector or string declares
	shift  int       // bytes of padding placed before the object (misaligns it)
	pos    int       // where layout put it
	placed bool
}

type fbKind uint8

const (
	fbKindTable fbKind = iota
	fbKindRefs
	fbKindScalars
)

// fbField is one field of a table: a scalar of size bytes, or a reference.
type fbField struct {
	slot int
	size int
	val  uint64
	ref  *fbNode
}

func fbTableNode(fields ...fbField) *fbNode { return &fbNode{fields: fields} }
func fbRefs(refs ...*fbNode) *fbNode        { return &fbNode{kind: fbKindRefs, refs: refs} }
func fbString(s string) *fbNode {
	return &fbNode{kind: fbKindScalars, raw: []byte(s), elem: 1, isStr: true}
}
func fbScalars(elem int, raw []byte) *fbNode {
	return &fbNode{kind: fbKindScalars, raw: raw, elem: elem}
}
func u8f(slot int, v uint8) fbField    { return fbField{slot: slot, size: 1, val: uint64(v)} }
func i16f(slot int, v int16) fbField   { return fbField{slot: slot, size: 2, val: uint64(uint16(v))} }
func i32f(slot int, v int32) fbField   { return fbField{slot: slot, size: 4, val: uint64(uint32(v))} }
func i64f(slot int, v int64) fbField   { return fbField{slot: slot, size: 8, val: uint64(v)} }
func reff(slot int, n *fbNode) fbField { return fbField{slot: slot, size: 4, ref: n} }

// fbLayout lays the graph out from root, parents before children (as
// flatbuffers builders do: uoffsets point forward), each object once, and
// patches every reference as a uint32 offset from where it is stored. A
// reference to an object laid out earlier wraps around 2^32, which is what
// arrow-go's flatbuffers code follows to it.
func fbLayout(root *fbNode) []byte {
	buf := make([]byte, 4)
	type patch struct {
		at int
		to *fbNode
	}
	var patches []patch
	align := func(n int) {
		for len(buf)%n != 0 {
			buf = append(buf, 0)
		}
	}
	var place func(n *fbNode)
	place = func(n *fbNode) {
		if n.placed {
			return
		}
		n.placed = true
		switch n.kind {
		case fbKindTable:
			// vtable, then the table: soffset, then fields in slot order
			// each aligned to its size.
			maxSlot := -1
			for _, f := range n.fields {
				maxSlot = max(maxSlot, f.slot)
			}
			align(8)
			vt := len(buf)
			buf = append(buf, make([]byte, 4+2*(maxSlot+1))...)
			align(8)
			buf = append(buf, make([]byte, n.shift)...)
			n.pos = len(buf)
			buf = append(buf, make([]byte, 4)...)
			binary.LittleEndian.PutUint32(buf[n.pos:], uint32(int32(n.pos-vt)))
			for _, f := range n.fields {
				for len(buf)%f.size != 0 {
					buf = append(buf, 0)
				}
				at := len(buf)
				buf = append(buf, make([]byte, f.size)...)
				if f.ref != nil {
					patches = append(patches, patch{at, f.ref})
				} else {
					for i := range f.size {
						buf[at+i] = byte(f.val >> (8 * i))
					}
				}
				binary.LittleEndian.PutUint16(buf[vt+4+2*f.slot:], uint16(at-n.pos))
			}
			binary.LittleEndian.PutUint16(buf[vt:], uint16(4+2*(maxSlot+1)))
			binary.LittleEndian.PutUint16(buf[vt+2:], uint16(len(buf)-n.pos))
			for _, f := range n.fields {
				if f.ref != nil {
					place(f.ref)
				}
			}
		case fbKindRefs:
			align(4)
			buf = append(buf, make([]byte, n.shift)...)
			n.pos = len(buf)
			count := uint32(len(n.refs))
			if n.count != nil {
				count = *n.count
			}
			buf = binary.LittleEndian.AppendUint32(buf, count)
			for _, r := range n.refs {
				patches = append(patches, patch{len(buf), r})
				buf = append(buf, 0, 0, 0, 0)
			}
			for _, r := range n.refs {
				place(r)
			}
		default:
			align(max(4, n.elem))
			if n.elem == 8 {
				buf = append(buf, 0, 0, 0, 0) // elements 8-aligned after the length
			}
			buf = append(buf, make([]byte, n.shift)...)
			n.pos = len(buf)
			count := uint32(len(n.raw) / n.elem)
			if n.count != nil {
				count = *n.count
			}
			buf = binary.LittleEndian.AppendUint32(buf, count)
			buf = append(buf, n.raw...)
			if n.isStr {
				buf = append(buf, 0)
			}
		}
	}
	place(root)
	align(8)
	patches = append(patches, patch{0, root})
	for _, p := range patches {
		binary.LittleEndian.PutUint32(buf[p.at:], uint32(p.to.pos-p.at))
	}
	return buf
}

// Builders of the Arrow schema tables (Schema.fbs, Message.fbs).

func fbKV(k, v string) *fbNode {
	return fbTableNode(reff(slotKey, fbString(k)), reff(slotValue, fbString(v)))
}

// fbFieldNode builds a Field table of type tag typ with type table data.
func fbFieldNode(name string, nullable bool, typ uint8, data *fbNode, children ...*fbNode) *fbNode {
	var null uint8
	if nullable {
		null = 1
	}
	return fbTableNode(
		reff(slotFieldName, fbString(name)),
		u8f(slotFieldNullable, null),
		u8f(slotFieldTypeType, typ),
		reff(slotFieldType, data),
		reff(slotFieldChildren, fbRefs(children...)),
	)
}

func fbInt(bits int32, signed bool) *fbNode {
	var s uint8
	if signed {
		s = 1
	}
	return fbTableNode(i32f(0, bits), u8f(1, s))
}

func fbEmpty() *fbNode { return fbTableNode() }

// fbSchemaNode builds a Schema table of fields and key-value metadata.
func fbSchemaNode(fields []*fbNode, md ...*fbNode) *fbNode {
	return fbTableNode(
		i16f(slotSchemaEndianness, 0),
		reff(slotSchemaFields, fbRefs(fields...)),
		reff(slotSchemaMetadata, fbRefs(md...)),
	)
}

// fbMessageNode builds a Message table holding schema, claiming bodyLen.
func fbMessageNode(schema *fbNode, bodyLen int64) *fbNode {
	return fbTableNode(
		i16f(slotMessageVersion, 4), // V5
		u8f(slotMessageHeaderType, fbHeaderSchema),
		reff(slotMessageHeader, schema),
		i64f(slotMessageBodyLength, bodyLen),
	)
}

// ipcFrame frames a message's metadata as an IPC stream: continuation,
// length, metadata, then the end-of-stream marker.
func ipcFrame(meta []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, ipcContinuation)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(meta)))
	b = append(b, meta...)
	b = binary.LittleEndian.AppendUint32(b, ipcContinuation)
	return binary.LittleEndian.AppendUint32(b, 0)
}

// streamWithSchema returns an arrowpack stream header carrying sch (an IPC
// stream) with a correct checksum, then an empty stream's end frame.
func streamWithSchema(sch []byte) []byte {
	return append(streamHeader(sch), make([]byte, frameHeaderSize)...)
}
