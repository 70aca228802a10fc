package codec

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// kind is the physical layout of one array node: what buffers and children
// it has on the wire. Arrow types that share a layout share a kind.
type kind uint8

const (
	kNull          kind = iota // no buffers
	kBool                      // validity, bit-packed values
	kFixed                     // validity, width bytes per value
	kBinary                    // validity, 32-bit offsets, data
	kLargeBinary               // validity, 64-bit offsets, data
	kView                      // validity, 16-byte views, data buffers
	kList                      // validity, 32-bit offsets, child (list, map)
	kLargeList                 // validity, 64-bit offsets, child
	kFixedList                 // validity, child of length*width
	kListView                  // validity, 32-bit offsets and sizes, child
	kLargeListView             // validity, 64-bit offsets and sizes, child
	kStruct                    // validity, children
	kSparseUnion               // type ids, children
	kDenseUnion                // type ids, 32-bit offsets, children
	kDict                      // validity, indices of width bytes, dictionary
	kRunEnd                    // run ends child, values child
)

// plan is what an Encoder or Decoder knows of one node of the schema's type
// tree, worked out once when it is made.
type plan struct {
	kind   kind
	dt     arrow.DataType // the type decoded arrays carry (extension types included)
	width  int            // kFixed: bytes per value; kFixedList: list size; kDict: index bytes; kRunEnd: run end bytes
	utf8   bool           // string data: decode checks it is valid UTF-8
	signed bool           // kDict: the indices are signed
	isMap  bool           // kList of a map: entries and keys have no nulls
	// transpose: kFixed values or kDict indices of 2, 4, 8 or 16 bytes,
	// which a block with flagTranspose stores byte-transposed (run ends,
	// floats and fixed-size binary excepted).
	transpose bool
	// hint is what the values buffer (kFixed), the indices (kDict) or the
	// data bytes (kBinary, kLargeBinary) hold, for the lightweight codecs.
	hint bufHint
	// children: the child nodes in wire order. kDict: the dictionary's
	// values; kRunEnd: run ends, then values.
	children []*plan
	// unionChild maps a union type code to the index of its child, or -1.
	unionChild *[128]int8
	// What an array of p must have, worked out by setShape for the
	// encoder's checks: at least minBufs buffers and nChildren children;
	// noValidity: a union or run-end array, which has no validity bitmap.
	minBufs, nChildren int
	noValidity         bool
}

// setShape sets minBufs, nChildren and noValidity of p and its children.
func (p *plan) setShape() {
	p.minBufs = p.kind.buffers()
	switch p.kind {
	case kNull, kStruct, kFixedList, kRunEnd:
		p.minBufs = 0 // only a validity slot, which may be left out
	case kView:
		p.minBufs = 2
	}
	p.nChildren = len(p.children)
	if p.kind == kDict {
		p.nChildren = 0 // the dictionary is not a child
	}
	switch p.kind {
	case kSparseUnion, kDenseUnion, kRunEnd:
		p.noValidity = true
	}
	for _, c := range p.children {
		c.setShape()
	}
}

// buffers returns the number of buffers an array of kind k has in Arrow,
// the validity slot included; views have this many plus their data buffers.
func (k kind) buffers() int {
	switch k {
	case kNull, kFixedList, kStruct, kRunEnd:
		return 1
	case kBinary, kLargeBinary, kListView, kLargeListView, kDenseUnion:
		return 3
	}
	return 2
}

// treeBuffers returns the number of buffers of the arrays of p's tree,
// data buffers of views aside.
func (p *plan) treeBuffers() int {
	n := p.kind.buffers()
	for _, c := range p.children {
		n += c.treeBuffers()
	}
	return n
}

// transposable reports whether TransposeBytes takes values of width bytes.
func transposable(width int) bool {
	return width == 2 || width == 4 || width == 8 || width == 16
}

// maxDepth bounds the nesting of a schema's types.
const maxDepth = 64

// newPlans builds the plan of every field of schema.
func newPlans(schema *arrow.Schema) ([]*plan, error) {
	if schema == nil {
		return nil, fmt.Errorf("%w: nil schema", ErrUnsupported)
	}
	plans := make([]*plan, schema.NumFields())
	for i, f := range schema.Fields() {
		p, err := newPlan(f.Type, 0)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		p.setShape()
		plans[i] = p
	}
	return plans, nil
}

func newPlan(dt arrow.DataType, depth int) (*plan, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: types nested deeper than %d", ErrUnsupported, maxDepth)
	}
	p := &plan{dt: dt}
	// Extension types travel as their storage; the plan keeps the
	// extension type so decoded arrays carry it.
	layout := dt
	for layout.ID() == arrow.EXTENSION {
		layout = layout.(arrow.ExtensionType).StorageType()
	}
	child := func(t arrow.DataType) error {
		c, err := newPlan(t, depth+1)
		if err != nil {
			return err
		}
		p.children = append(p.children, c)
		return nil
	}
	fields := func(fs []arrow.Field) error {
		for _, f := range fs {
			if err := child(f.Type); err != nil {
				return err
			}
		}
		return nil
	}
	switch t := layout.(type) {
	case *arrow.NullType:
		p.kind = kNull
	case *arrow.BooleanType:
		p.kind = kBool
	case *arrow.StringType, *arrow.BinaryType, *arrow.LargeStringType, *arrow.LargeBinaryType:
		p.kind, p.utf8 = kBinary, t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING
		if arrow.IsLargeBinaryLike(t.ID()) {
			p.kind = kLargeBinary
		}
		p.hint = bufHint{kind: hText, col: p}
	case *arrow.StringViewType:
		p.kind, p.utf8 = kView, true
	case *arrow.BinaryViewType:
		p.kind = kView
	case *arrow.ListType:
		p.kind = kList
		return p, child(t.Elem())
	case *arrow.MapType:
		p.kind, p.isMap = kList, true
		return p, child(t.Elem())
	case *arrow.LargeListType:
		p.kind = kLargeList
		return p, child(t.Elem())
	case *arrow.FixedSizeListType:
		p.kind, p.width = kFixedList, int(t.Len())
		if t.Len() < 0 {
			return nil, fmt.Errorf("%w: %s with a negative size", ErrUnsupported, dt)
		}
		return p, child(t.Elem())
	case *arrow.ListViewType:
		p.kind = kListView
		return p, child(t.Elem())
	case *arrow.LargeListViewType:
		p.kind = kLargeListView
		return p, child(t.Elem())
	case *arrow.StructType:
		p.kind = kStruct
		if err := fields(t.Fields()); err != nil {
			return nil, err
		}
	case arrow.UnionType:
		if err := p.union(t); err != nil {
			return nil, err
		}
		if err := fields(t.Fields()); err != nil {
			return nil, err
		}
	case *arrow.DictionaryType:
		p.kind = kDict
		if p.width = intWidth(t.IndexType); p.width == 0 {
			return nil, fmt.Errorf("%w: dictionary index type %s", ErrUnsupported, t.IndexType)
		}
		p.signed = arrow.IsSignedInteger(t.IndexType.ID())
		p.transpose = transposable(p.width)
		p.hint = intHint(p, p.width)
		return p, child(t.ValueType)
	case *arrow.RunEndEncodedType:
		p.kind = kRunEnd
		if p.width = intWidth(t.RunEnds()); p.width == 0 {
			return nil, fmt.Errorf("%w: run end type %s", ErrUnsupported, t.RunEnds())
		}
		if err := child(t.RunEnds()); err != nil {
			return nil, err
		}
		// The encoder computes run ends as it writes them; they are few.
		p.children[0].transpose = false
		return p, child(t.Encoded())
	case arrow.FixedWidthDataType:
		if err := p.fixedWidth(t); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: type %s", ErrUnsupported, dt)
	}
	return p, nil
}

// intWidth returns the bytes of an integer type, or 0 for other types.
func intWidth(dt arrow.DataType) int {
	if t, ok := dt.(arrow.FixedWidthDataType); ok && arrow.IsInteger(dt.ID()) {
		return t.BitWidth() / 8
	}
	return 0
}

// union fills in a union's kind and the map from its type codes to its
// children.
func (p *plan) union(t arrow.UnionType) error {
	p.kind = kSparseUnion
	if t.Mode() == arrow.DenseMode {
		p.kind = kDenseUnion
	}
	var m [128]int8
	for i := range m {
		m[i] = -1
	}
	for i, code := range t.TypeCodes() {
		if code < 0 || i > 127 {
			return fmt.Errorf("%w: %s has type code %d", ErrUnsupported, p.dt, code)
		}
		m[code] = int8(i)
	}
	p.unionChild = &m
	return nil
}

// fixedWidth fills in the plan of a fixed-width type: numbers, decimals,
// dates, times, timestamps, durations, intervals, float16 and
// fixed_size_binary.
func (p *plan) fixedWidth(t arrow.FixedWidthDataType) error {
	bits := t.BitWidth()
	if bits <= 0 || bits%8 != 0 {
		return fmt.Errorf("%w: fixed-width type %s of %d bits", ErrUnsupported, p.dt, bits)
	}
	p.kind, p.width = kFixed, bits/8
	// Transposing gathers the high bytes of integers, decimals and
	// temporal values, which are mostly alike. Floats with random
	// mantissas and opaque fixed-size binary grew when transposed on
	// the benchmark batches, so they stay as they are.
	switch t.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.FIXED_SIZE_BINARY:
	default:
		p.transpose = transposable(p.width)
	}
	switch t.ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		p.hint = bufHint{kind: hFloat, width: uint8(p.width), col: p}
	case arrow.INT32, arrow.INT64, arrow.UINT32, arrow.UINT64, arrow.DATE32, arrow.DATE64,
		arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION, arrow.DECIMAL32, arrow.DECIMAL64,
		arrow.DECIMAL128:
		p.hint = intHint(p, p.width)
	}
	return nil
}

func (k kind) String() string {
	names := [...]string{"null", "bool", "fixed", "binary", "large_binary", "view", "list",
		"large_list", "fixed_list", "list_view", "large_list_view", "struct", "sparse_union",
		"dense_union", "dictionary", "run_end"}
	if int(k) < len(names) {
		return names[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}
