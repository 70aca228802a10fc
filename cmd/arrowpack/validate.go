package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
)

// validBatch checks a batch that arrowpack did not write, as arrow-go's
// readers do not: offsets, lengths, dictionary indices, run ends, UTF-8 of
// strings (array.ValidateFull, column by column as ValidateRecordFull
// does). Without it a hostile or damaged IPC or Parquet file makes the
// printers panic, or convert write a file no one can read back. The error
// names the column; the values it quotes are made printable.
func validBatch(rec arrow.RecordBatch) error {
	for i, col := range rec.Columns() {
		if err := validColumn(col); err != nil {
			msg := fmt.Sprintf("column %d (%s): %s", i, rec.ColumnName(i), oneLine(err.Error()))
			return &invalidBatchError{msg: strings.ToValidUTF8(msg, "\uFFFD"), err: err}
		}
	}
	return nil
}

// validColumn is array.ValidateFull, which itself panics on some offsets
// that point past the data (a string array's [0,4,1] over 1 byte: it
// slices before it has checked them all); the panic is the column's error.
func validColumn(col arrow.Array) (err error) {
	if asciiStrings(col) {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("offsets or lengths point outside its buffers (%v)", p)
		}
	}()
	if d, patched := withNullSlots(col.Data()); patched {
		defer d.Release()
		col = array.MakeFromData(d)
		defer col.Release()
	}
	return array.ValidateFull(col)
}

// withNullSlots returns d patched where arrow-go's validation trips on
// sound data, and true; or d itself and false when there is nothing to
// patch. It expects a buffer of a null-type array, which its IPC reader does
// not give; and it reads the offsets of an empty dense union, which may be
// absent: an empty array gets empty buffers for absent ones (the validity
// bitmap aside). The caller releases what it returns with true.
func withNullSlots(d arrow.ArrayData) (arrow.ArrayData, bool) {
	if d.DataType().ID() == arrow.NULL {
		if len(d.Buffers()) > 0 {
			return d, false
		}
		return array.NewData(d.DataType(), d.Len(), []*memory.Buffer{nil}, nil, d.NullN(), d.Offset()), true
	}
	buffers, bufPatched := d.Buffers(), false
	if d.Len() == 0 {
		for i, b := range buffers {
			if i > 0 && b == nil {
				if !bufPatched {
					buffers, bufPatched = slices.Clone(buffers), true
				}
				buffers[i] = memory.NewBufferBytes([]byte{})
			}
		}
	}
	var children []arrow.ArrayData
	var made []arrow.ArrayData
	for i, c := range d.Children() {
		if p, ok := withNullSlots(c); ok {
			if children == nil {
				children = slices.Clone(d.Children())
			}
			children[i] = p
			made = append(made, p)
		}
	}
	dict := d.Dictionary()
	if dd, ok := dict.(*array.Data); !ok || dd == nil {
		dict = nil // a typed nil, when there is none
	}
	if dict != nil {
		if p, ok := withNullSlots(dict); ok {
			dict = p
			made = append(made, p)
		}
	}
	if len(made) == 0 && !bufPatched {
		return d, false
	}
	if children == nil {
		children = d.Children()
	}
	var nd arrow.ArrayData
	if dict != nil {
		nd = array.NewDataWithDictionary(d.DataType(), d.Len(), buffers, d.NullN(), d.Offset(), dict.(*array.Data))
	} else {
		nd = array.NewData(d.DataType(), d.Len(), buffers, children, d.NullN(), d.Offset())
	}
	for _, m := range made {
		m.Release()
	}
	return nd, true
}

// invalidBatchError is a batch that array.ValidateFull refused, its message
// cleaned of the bytes it quotes; it matches arrow.ErrInvalid.
type invalidBatchError struct {
	msg string
	err error
}

func (e *invalidBatchError) Error() string { return e.msg }

func (e *invalidBatchError) Unwrap() []error { return []error{e.err, arrow.ErrInvalid} }

// asciiStrings reports whether col is a string or large_string array that
// array.ValidateFull would pass, by a faster road for the common case: its
// layout is sound (array.Validate), its null count is its bitmap's, its
// offsets never decrease and stay within its data (the ValidOffsets kernel)
// and its data is all ASCII (the IsASCII kernel), so that every value is
// UTF-8 without a check per value, which takes most of ValidateFull's time
// on text. false means: let ValidateFull look (and name the fault).
func asciiStrings(col arrow.Array) bool {
	id := col.DataType().ID()
	if id != arrow.STRING && id != arrow.LARGE_STRING {
		return false
	}
	d := col.Data()
	if d.Len() == 0 || len(d.Buffers()) < 3 || array.Validate(col) != nil {
		return false
	}
	if n := d.NullN(); n != array.UnknownNullCount {
		actual := 0
		if b := d.Buffers()[0]; b != nil {
			actual = d.Len() - bitutil.CountSetBits(b.Bytes(), d.Offset(), d.Len())
		}
		if actual != n {
			return false
		}
	}
	var data []byte
	if b := d.Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	switch a := col.(type) {
	case *array.String:
		offs := a.ValueOffsets()
		if int64(len(data)) > 1<<31-1 || !arrowpack.ValidOffsets32(offs, int32(len(data))) {
			return false
		}
		return len(offs) == 0 || arrowpack.IsASCII(data[offs[0]:offs[len(offs)-1]])
	case *array.LargeString:
		offs := a.ValueOffsets()
		if !arrowpack.ValidOffsets64(offs, int64(len(data))) {
			return false
		}
		return len(offs) == 0 || arrowpack.IsASCII(data[offs[0]:offs[len(offs)-1]])
	}
	return false
}
