package codec

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// A stream's schema travels as an Arrow IPC stream holding one schema
// message. arrow-go's IPC reader trusts those bytes: a flatbuffer table that
// points back at itself overflows its stack (a fatal error, not a panic), a
// huge body length or vector count makes it allocate gigabytes, and fields
// that share a subtree multiply its work per level. verifySchemaMessage
// checks the bytes the way the flatbuffers verifier does before arrow-go
// sees them, so that what arrow-go parses is a tree bounded by the bytes.
//
// Slot numbers and field types come from Arrow's format/Message.fbs and
// format/Schema.fbs (the layout arrow-go's internal/flatbuf reads).

// The flatbuffer slots the verifier reads, per table.
const (
	// Message
	slotMessageVersion    = 0 // short
	slotMessageHeaderType = 1 // ubyte, MessageHeader
	slotMessageHeader     = 2 // table
	slotMessageBodyLength = 3 // long
	slotMessageMetadata   = 4 // [KeyValue]

	// Schema
	slotSchemaEndianness = 0 // short
	slotSchemaFields     = 1 // [Field]
	slotSchemaMetadata   = 2 // [KeyValue]
	slotSchemaFeatures   = 3 // [long]

	// Field
	slotFieldName       = 0 // string
	slotFieldNullable   = 1 // bool
	slotFieldTypeType   = 2 // ubyte, Type
	slotFieldType       = 3 // table
	slotFieldDictionary = 4 // DictionaryEncoding
	slotFieldChildren   = 5 // [Field]
	slotFieldMetadata   = 6 // [KeyValue]

	// DictionaryEncoding
	slotDictID        = 0 // long
	slotDictIndexType = 1 // Int
	slotDictOrdered   = 2 // bool
	slotDictKind      = 3 // short

	// KeyValue
	slotKey   = 0 // string
	slotValue = 1 // string
)

// MessageHeader and Type union tags (Message.fbs, Schema.fbs).
const (
	fbHeaderSchema = 1

	fbTypeNull            = 1
	fbTypeInt             = 2
	fbTypeFloatingPoint   = 3
	fbTypeBinary          = 4
	fbTypeUtf8            = 5
	fbTypeBool            = 6
	fbTypeDecimal         = 7
	fbTypeDate            = 8
	fbTypeTime            = 9
	fbTypeTimestamp       = 10
	fbTypeInterval        = 11
	fbTypeList            = 12
	fbTypeStruct          = 13
	fbTypeUnion           = 14
	fbTypeFixedSizeBinary = 15
	fbTypeFixedSizeList   = 16
	fbTypeMap             = 17
	fbTypeDuration        = 18
	fbTypeLargeBinary     = 19
	fbTypeLargeUtf8       = 20
	fbTypeLargeList       = 21
	fbTypeRunEndEncoded   = 22
	fbTypeBinaryView      = 23
	fbTypeUtf8View        = 24
	fbTypeListView        = 25
	fbTypeLargeListView   = 26
)

// ipcContinuation marks an IPC message in the framing of Arrow 0.15 and
// later: 0xFFFFFFFF, then the int32 metadata length.
const ipcContinuation = 0xFFFFFFFF

// verifySchemaMessage checks that b is an Arrow IPC stream holding exactly
// one schema message with an empty body, optionally followed by the
// end-of-stream marker, and that the message's flatbuffer is sound: every
// offset, vtable, vector and string in range and aligned, every table,
// vector and string reached once (no cycles, no shared subtrees), the
// strings and vectors together no longer than the bytes, fields nested at
// most as deep as the codec's plans allow, and the enums and counts arrow-go
// would panic on in range. Errors wrap ErrCorrupt.
func verifySchemaMessage(b []byte) error {
	meta, rest, err := splitSchemaMessage(b)
	if err != nil {
		return err
	}
	if !isEndOfStream(rest) {
		return corruptf("schema: %d bytes after the schema message are not an end-of-stream marker", len(rest))
	}
	return verifyMessageFlatbuffer(meta)
}

// arrowRecovered reports whether err is how arrow-go's IPC reader reports
// a panic it recovered from: a check verifySchemaMessage lacks.
func arrowRecovered(err error) bool {
	s := err.Error()
	return strings.Contains(s, "unknown error while reading") || strings.Contains(s, "invalid message metadata")
}

// splitSchemaMessage parses the IPC framing of the first message of b and
// returns its metadata flatbuffer and the bytes after it.
func splitSchemaMessage(b []byte) (meta, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, corruptf("schema: %d bytes hold no IPC message", len(b))
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if n == ipcContinuation {
		if len(b) < 4 {
			return nil, nil, corruptf("schema: IPC message truncated in its metadata length")
		}
		n = binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	// Otherwise n is the length itself, the framing before Arrow 0.15.
	if n == 0 {
		return nil, nil, corruptf("schema: the IPC stream ends before its schema message")
	}
	if int32(n) < 8 || uint64(n) > uint64(len(b)) {
		return nil, nil, corruptf("schema: IPC metadata length %d, the schema has %d bytes after the length", int32(n), len(b))
	}
	return b[:n], b[n:], nil
}

// isEndOfStream reports whether b is empty or exactly one IPC end-of-stream
// marker, in the current or the old framing.
func isEndOfStream(b []byte) bool {
	switch len(b) {
	case 0:
		return true
	case 4:
		return binary.LittleEndian.Uint32(b) == 0
	case 8:
		return binary.LittleEndian.Uint32(b) == ipcContinuation && binary.LittleEndian.Uint32(b[4:]) == 0
	}
	return false
}

// fbVerifier walks one flatbuffer. seen has one bit per 4-byte-aligned
// position: a table, vector or string starting there was reached already.
// payload counts the bytes of the vectors and strings reached, which
// together cannot exceed the buffer when nothing is shared.
type fbVerifier struct {
	buf     []byte
	seen    []uint64
	payload int
}

// fbTable is a verified table: its position, its vtable and the vtable's
// size.
type fbTable struct {
	v      *fbVerifier
	pos    int
	vtable int
	vtSize int
	what   string
}

// verifyMessageFlatbuffer verifies the Message flatbuffer buf of a schema
// message and the Schema table it holds.
func verifyMessageFlatbuffer(buf []byte) error {
	if len(buf) >= 1<<31-1 {
		return corruptf("schema: message of %d bytes is too large for a flatbuffer", len(buf))
	}
	v := &fbVerifier{buf: buf, seen: make([]uint64, (len(buf)/4+63)/64)}
	root, err := v.root()
	if err != nil {
		return err
	}
	ht, err := root.u8(slotMessageHeaderType)
	if err != nil {
		return err
	}
	if ht != fbHeaderSchema {
		return corruptf("schema: IPC message of header type %d, want a schema (%d)", ht, fbHeaderSchema)
	}
	if _, err := root.i16(slotMessageVersion); err != nil {
		return err
	}
	body, err := root.i64(slotMessageBodyLength)
	if err != nil {
		return err
	}
	if body != 0 {
		return corruptf("schema: schema message claims a body of %d bytes, want none", body)
	}
	if err := root.keyValues(slotMessageMetadata); err != nil {
		return err
	}
	schema, err := root.table(slotMessageHeader, "schema", true)
	if err != nil {
		return err
	}
	return v.schema(schema)
}

// schema verifies a Schema table.
func (v *fbVerifier) schema(t fbTable) error {
	end, err := t.i16(slotSchemaEndianness)
	if err != nil {
		return err
	}
	if end != 0 && end != 1 {
		return corruptf("schema: endianness %d is neither little (0) nor big (1)", end)
	}
	if _, _, err := t.vector(slotSchemaFeatures, 8); err != nil {
		return err
	}
	if err := t.keyValues(slotSchemaMetadata); err != nil {
		return err
	}
	start, n, err := t.vector(slotSchemaFields, 4)
	if err != nil {
		return err
	}
	return v.eachTable(start, n, "field", func(i int, f fbTable) error {
		if err := v.field(f, 0); err != nil {
			return fmt.Errorf("field %d: %w", i, err)
		}
		return nil
	})
}

// field verifies a Field table whose type sits at depth in the codec's
// plan tree (newPlan's depth: top-level types at 0; a dictionary's values
// one below the dictionary; children one below their parent).
func (v *fbVerifier) field(t fbTable, depth int) error {
	if _, err := t.str(slotFieldName); err != nil {
		return err
	}
	if _, err := t.u8(slotFieldNullable); err != nil {
		return err
	}
	if err := t.keyValues(slotFieldMetadata); err != nil {
		return err
	}
	dict, err := t.table(slotFieldDictionary, "dictionary encoding", false)
	if err != nil {
		return err
	}
	if dict.pos != 0 {
		if err := v.dictionary(dict); err != nil {
			return err
		}
		depth++ // the field's type is the dictionary's value type
	}
	if depth > maxDepth {
		return corruptf("schema: types nested deeper than %d", maxDepth)
	}
	start, nchildren, err := t.vector(slotFieldChildren, 4)
	if err != nil {
		return err
	}
	typ, err := t.u8(slotFieldTypeType)
	if err != nil {
		return err
	}
	data, err := t.table(slotFieldType, "type", true)
	if err != nil {
		return err
	}
	if err := v.typeTable(typ, data, nchildren); err != nil {
		return err
	}
	// Errors name the offset where they were found; wrapping them once per
	// level would cost memory quadratic in the depth.
	return v.eachTable(start, nchildren, "field", func(_ int, c fbTable) error {
		return v.field(c, depth+1)
	})
}

// dictionary verifies a DictionaryEncoding table.
func (v *fbVerifier) dictionary(t fbTable) error {
	if _, err := t.i64(slotDictID); err != nil {
		return err
	}
	if _, err := t.u8(slotDictOrdered); err != nil {
		return err
	}
	if _, err := t.i16(slotDictKind); err != nil {
		return err
	}
	idx, err := t.table(slotDictIndexType, "dictionary index type", true)
	if err != nil {
		return err
	}
	return v.typeTable(fbTypeInt, idx, 0)
}

// typeTable verifies the table of a Type union member of tag typ, for a
// field with nchildren children, and the values arrow-go would panic on.
func (v *fbVerifier) typeTable(typ uint8, t fbTable, nchildren int) error {
	wantChildren := 0
	switch typ {
	case fbTypeNull, fbTypeBinary, fbTypeUtf8, fbTypeBool, fbTypeLargeBinary,
		fbTypeLargeUtf8, fbTypeBinaryView, fbTypeUtf8View:
	case fbTypeList, fbTypeLargeList, fbTypeListView, fbTypeLargeListView, fbTypeMap:
		wantChildren = 1
		if typ == fbTypeMap {
			if _, err := t.u8(0); err != nil { // keysSorted
				return err
			}
		}
	case fbTypeRunEndEncoded:
		wantChildren = 2
	case fbTypeStruct:
		wantChildren = -1
	case fbTypeInt:
		if _, err := t.i32(0); err != nil { // bitWidth
			return err
		}
		if _, err := t.u8(1); err != nil { // is_signed
			return err
		}
	case fbTypeFloatingPoint, fbTypeDate, fbTypeInterval:
		if _, err := t.i16(0); err != nil { // precision or unit
			return err
		}
	case fbTypeDecimal:
		for slot := range 3 { // precision, scale, bitWidth
			if _, err := t.i32(slot); err != nil {
				return err
			}
		}
	case fbTypeTime, fbTypeTimestamp, fbTypeDuration:
		unit, err := t.i16(0)
		if err != nil {
			return err
		}
		if unit < 0 || unit > 3 {
			return corruptf("schema: time unit %d is not one of 0..3", unit)
		}
		switch typ {
		case fbTypeTime:
			_, err = t.i32(1) // bitWidth
		case fbTypeTimestamp:
			_, err = t.str(1) // timezone
		}
		if err != nil {
			return err
		}
	case fbTypeFixedSizeBinary:
		if _, err := t.i32(0); err != nil { // byteWidth
			return err
		}
	case fbTypeFixedSizeList:
		wantChildren = 1
		n, err := t.i32(0) // listSize
		if err != nil {
			return err
		}
		if n <= 0 {
			return corruptf("schema: fixed-size list of size %d", n)
		}
	case fbTypeUnion:
		wantChildren = -1
		if err := t.union(nchildren); err != nil {
			return err
		}
	default:
		return corruptf("schema: unknown type tag %d", typ)
	}
	if wantChildren >= 0 && nchildren != wantChildren {
		return corruptf("schema: a field of type tag %d has %d children, want %d", typ, nchildren, wantChildren)
	}
	return nil
}

// union verifies a Union table: its mode and type ids, which must be as
// many as the children (or absent, meaning 0..n-1), in 0..127 and distinct.
func (t fbTable) union(nchildren int) error {
	mode, err := t.i16(0)
	if err != nil {
		return err
	}
	if mode != 0 && mode != 1 {
		return corruptf("schema: union mode %d is neither sparse (0) nor dense (1)", mode)
	}
	start, n, err := t.vector(1, 4)
	if err != nil {
		return err
	}
	if n == 0 {
		if nchildren > 128 {
			return corruptf("schema: union of %d children has more than 128 type codes", nchildren)
		}
		return nil
	}
	if n != nchildren {
		return corruptf("schema: union has %d type ids for %d children", n, nchildren)
	}
	var seen [128]bool
	for i := range n {
		id := int32(binary.LittleEndian.Uint32(t.v.buf[start+4*i:]))
		if id < 0 || id > 127 || seen[id] {
			return corruptf("schema: union type id %d is out of 0..127 or repeated", id)
		}
		seen[id] = true
	}
	return nil
}

// root verifies the root table of the buffer.
func (v *fbVerifier) root() (fbTable, error) {
	if len(v.buf) < 4 {
		return fbTable{}, corruptf("schema: flatbuffer of %d bytes", len(v.buf))
	}
	return v.table(int(binary.LittleEndian.Uint32(v.buf)), "message")
}

// mark records that an object starts at pos, which must be 4-byte aligned
// and not reached before.
func (v *fbVerifier) mark(pos int, what string) error {
	if pos%4 != 0 {
		return corruptf("schema: %s at offset %d is not 4-byte aligned", what, pos)
	}
	w, bit := pos/4/64, uint(pos/4%64)
	if v.seen[w]&(1<<bit) != 0 {
		return corruptf("schema: %s at offset %d is reached twice (a cycle or a shared subtree)", what, pos)
	}
	v.seen[w] |= 1 << bit
	return nil
}

// table verifies the table at pos: in range, aligned, reached once, with a
// vtable in range.
func (v *fbVerifier) table(pos int, what string) (fbTable, error) {
	if pos < 0 || pos > len(v.buf)-4 {
		return fbTable{}, corruptf("schema: %s table at offset %d is outside the %d-byte flatbuffer", what, pos, len(v.buf))
	}
	if err := v.mark(pos, what+" table"); err != nil {
		return fbTable{}, err
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(v.buf[pos:])))
	if vt < 0 || vt > len(v.buf)-4 || vt%2 != 0 {
		return fbTable{}, corruptf("schema: %s table at offset %d has its vtable at %d, outside the flatbuffer or misaligned", what, pos, vt)
	}
	vtSize := int(binary.LittleEndian.Uint16(v.buf[vt:]))
	if vtSize < 4 || vtSize%2 != 0 || vtSize > len(v.buf)-vt {
		return fbTable{}, corruptf("schema: %s table at offset %d has a vtable of %d bytes at %d", what, pos, vtSize, vt)
	}
	// The table size the vtable states is not checked: the Go flatbuffers
	// builder shares a vtable between tables whose field offsets match
	// whatever their sizes, so arrow-go writes vtables whose size is
	// another table's. Fields are checked against the buffer instead.
	return fbTable{v: v, pos: pos, vtable: vt, vtSize: vtSize, what: what}, nil
}

// field returns the position of the field in slot, or 0 if it is absent,
// after checking that size bytes there are inside the table and aligned.
func (t fbTable) field(slot, size int) (int, error) {
	at := 4 + 2*slot
	if at+2 > t.vtSize {
		return 0, nil
	}
	off := int(binary.LittleEndian.Uint16(t.v.buf[t.vtable+at:]))
	if off == 0 {
		return 0, nil
	}
	if off < 4 || off > len(t.v.buf)-t.pos-size {
		return 0, corruptf("schema: %s table at offset %d has field %d at %d, outside the %d-byte flatbuffer", t.what, t.pos, slot, off, len(t.v.buf))
	}
	if (t.pos+off)%size != 0 {
		return 0, corruptf("schema: %s table at offset %d has field %d misaligned at %d", t.what, t.pos, slot, t.pos+off)
	}
	return t.pos + off, nil
}

func (t fbTable) u8(slot int) (uint8, error) {
	p, err := t.field(slot, 1)
	if p == 0 || err != nil {
		return 0, err
	}
	return t.v.buf[p], nil
}

func (t fbTable) i16(slot int) (int16, error) {
	p, err := t.field(slot, 2)
	if p == 0 || err != nil {
		return 0, err
	}
	return int16(binary.LittleEndian.Uint16(t.v.buf[p:])), nil
}

func (t fbTable) i32(slot int) (int32, error) {
	p, err := t.field(slot, 4)
	if p == 0 || err != nil {
		return 0, err
	}
	return int32(binary.LittleEndian.Uint32(t.v.buf[p:])), nil
}

func (t fbTable) i64(slot int) (int64, error) {
	p, err := t.field(slot, 8)
	if p == 0 || err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(t.v.buf[p:])), nil
}

// target follows the uoffset in slot and returns where it points, or 0 if
// the field is absent. uoffsets point forward: the target is never before
// the field, which alone rules out cycles; shared targets are caught by mark.
func (t fbTable) target(slot int, what string) (int, error) {
	p, err := t.field(slot, 4)
	if p == 0 || err != nil {
		return 0, err
	}
	return t.v.follow(p, what)
}

// follow returns where the uoffset at p points, checked to be inside the
// buffer.
func (v *fbVerifier) follow(p int, what string) (int, error) {
	to := int64(p) + int64(binary.LittleEndian.Uint32(v.buf[p:]))
	if to > int64(len(v.buf)-4) {
		return 0, corruptf("schema: %s at offset %d points to %d, outside the %d-byte flatbuffer", what, p, to, len(v.buf))
	}
	return int(to), nil
}

// table verifies the subtable in slot. An absent optional table is returned
// with pos 0 (never a table's position: the root offset is there).
func (t fbTable) table(slot int, what string, required bool) (fbTable, error) {
	to, err := t.target(slot, what)
	if err != nil {
		return fbTable{}, err
	}
	if to == 0 {
		if required {
			return fbTable{}, corruptf("schema: %s table at offset %d lacks its %s", t.what, t.pos, what)
		}
		return fbTable{}, nil
	}
	return t.v.table(to, what)
}

// vector verifies the vector of elem-byte elements in slot and returns the
// position of its first element and its length (0, 0 if absent).
func (t fbTable) vector(slot, elem int) (start, n int, err error) {
	to, err := t.target(slot, "vector")
	if to == 0 || err != nil {
		return 0, 0, err
	}
	return t.v.vector(to, elem, 0)
}

// vector verifies a vector (or, with extra 1, a string and its NUL) at pos.
func (v *fbVerifier) vector(pos, elem, extra int) (start, n int, err error) {
	if err := v.mark(pos, "vector"); err != nil {
		return 0, 0, err
	}
	count := uint64(binary.LittleEndian.Uint32(v.buf[pos:]))
	start = pos + 4
	size := count*uint64(elem) + uint64(extra)
	if size > uint64(len(v.buf)-start) {
		return 0, 0, corruptf("schema: vector at offset %d claims %d elements of %d bytes, the flatbuffer has %d bytes after it", pos, count, elem, len(v.buf)-start)
	}
	v.payload += 4 + int(size)
	if v.payload > len(v.buf) {
		return 0, 0, corruptf("schema: vectors and strings add up to more than the %d-byte flatbuffer (they overlap)", len(v.buf))
	}
	return start, int(count), nil
}

// str verifies the string in slot and returns its length.
func (t fbTable) str(slot int) (int, error) {
	to, err := t.target(slot, "string")
	if to == 0 || err != nil {
		return 0, err
	}
	start, n, err := t.v.vector(to, 1, 1)
	if err != nil {
		return 0, err
	}
	if t.v.buf[start+n] != 0 {
		return 0, corruptf("schema: string at offset %d lacks its NUL terminator", to)
	}
	return n, nil
}

// eachTable verifies the n tables a vector of uoffsets at start points to
// and calls fn with each, in order.
func (v *fbVerifier) eachTable(start, n int, what string, fn func(int, fbTable) error) error {
	for i := range n {
		to, err := v.follow(start+4*i, what)
		if err != nil {
			return err
		}
		t, err := v.table(to, what)
		if err != nil {
			return err
		}
		if err := fn(i, t); err != nil {
			return err
		}
	}
	return nil
}

// keyValues verifies the vector of KeyValue tables in slot.
func (t fbTable) keyValues(slot int) error {
	start, n, err := t.vector(slot, 4)
	if err != nil {
		return err
	}
	return t.v.eachTable(start, n, "key-value", func(_ int, kv fbTable) error {
		if _, err := kv.str(slotKey); err != nil {
			return err
		}
		_, err := kv.str(slotValue)
		return err
	})
}
