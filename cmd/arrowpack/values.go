package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// How cat prints a value, in a table cell and in JSON alike:
//   - null is null, at any depth;
//   - binary is its text when it is printable UTF-8, else 0x and its bytes
//     in hex;
//   - a character that does not show as itself (a control, a bidi
//     override) is escaped: \x1b in a table, \u001b in JSON (escapeText,
//     appendJSONText);
//   - a decimal has as many digits after the point as its scale (1.00);
//   - a float that JSON cannot hold is the string "NaN", "+Inf" or "-Inf";
//   - a struct is an object of its fields in schema order, a list or map an
//     array (a map's entries {"key":…,"value":…}); a field whose name
//     repeats an earlier one in the same object is named NAME#INDEX, its
//     index among the fields, so that no value hides another;
//   - a dictionary, run-end encoded or union value is the value it stands
//     for; the rest as arrow-go writes it in JSON.
//
// JSON strings do not escape <, > and &.

// appendJSON appends the JSON text of value i of col to b.
func appendJSON(b []byte, col arrow.Array, i int) ([]byte, error) {
	if col.IsNull(i) {
		return append(b, "null"...), nil
	}
	switch a := col.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		b = append(b, '{')
		for j, name := range objectKeys(st.Fields()) {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, name)
			b = append(b, ':')
			var err error
			if b, err = appendJSON(b, a.Field(j), i); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		values := a.ListValues()
		b = append(b, '[')
		for k := start; k < end; k++ {
			if k > start {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, values, int(k)); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case *array.Dictionary:
		return appendJSON(b, a.Dictionary(), a.GetValueIndex(i))
	case *array.RunEndEncoded:
		return appendJSON(b, a.Values(), a.GetPhysicalIndex(i))
	case *array.SparseUnion:
		return appendJSON(b, a.Field(a.ChildID(i)), i)
	case *array.DenseUnion:
		return appendJSON(b, a.Field(a.ChildID(i)), int(a.ValueOffset(i)))
	case *array.String:
		return appendJSONString(b, a.Value(i)), nil
	case *array.LargeString:
		return appendJSONString(b, a.Value(i)), nil
	case *array.StringView:
		return appendJSONString(b, a.Value(i)), nil
	case interface{ Value(int) []byte }:
		return appendJSONString(b, binaryText(a.Value(i))), nil
	case *array.Float16:
		return appendFloat(b, float64(a.Value(i).Float32()), 32), nil
	case *array.Float32:
		return appendFloat(b, float64(a.Value(i)), 32), nil
	case *array.Float64:
		return appendFloat(b, a.Value(i), 64), nil
	}
	if s, ok := decimalText(col, i); ok {
		return append(b, s...), nil
	}
	v, err := marshalNoEscape(col.GetOneForMarshal(i))
	if err != nil {
		return b, err
	}
	return appendJSONText(b, v), nil
}

// objectKeys returns the keys of an object of fields: their names, a name
// that repeats an earlier one as NAME#INDEX.
func objectKeys(fields []arrow.Field) []string {
	keys := make([]string, len(fields))
	seen := make(map[string]bool, len(fields))
	for j, f := range fields {
		keys[j] = f.Name
		if seen[f.Name] {
			keys[j] = f.Name + "#" + strconv.Itoa(j)
		}
		seen[f.Name] = true
	}
	return keys
}

// appendJSONString appends s as a JSON string, <, > and & as they are,
// every character that does not show as itself escaped.
func appendJSONString(b []byte, s string) []byte {
	v, _ := marshalNoEscape(s) // a string always marshals
	return appendJSONText(b, v)
}

// marshalNoEscape is json.Marshal without HTML escaping and without the
// newline the Encoder adds.
func marshalNoEscape(v any) ([]byte, error) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(sb.String(), "\n")), nil
}

// appendFloat appends f as a JSON number, or as a string if JSON has none
// for it.
func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// decimalText returns value i of a decimal column with the digits its
// scale calls for, and whether col is a decimal column.
func decimalText(col arrow.Array, i int) (string, bool) {
	dt, ok := col.DataType().(arrow.DecimalType)
	if !ok {
		return "", false
	}
	scale := dt.GetScale()
	switch a := col.(type) {
	case *array.Decimal32:
		return a.Value(i).ToString(scale), true
	case *array.Decimal64:
		return a.Value(i).ToString(scale), true
	case *array.Decimal128:
		return a.Value(i).ToString(scale), true
	case *array.Decimal256:
		return a.Value(i).ToString(scale), true
	}
	return "", false
}

// binaryText returns a binary value as its text when it is printable
// UTF-8 (every character shows as itself, or is a tab, newline or carriage
// return), else as 0x and its bytes in hex.
func binaryText(v []byte) string {
	if utf8.Valid(v) && !strings.ContainsFunc(string(v), func(r rune) bool { return !shows(r) && r != '\t' && r != '\n' && r != '\r' }) {
		return string(v)
	}
	return fmt.Sprintf("0x%x", v)
}

// cellText returns the text of value i of col for a table cell: nested
// values as their JSON text, the others as in JSON without the quotes of
// strings; null as null.
func cellText(col arrow.Array, i int) (string, error) {
	if col.IsNull(i) {
		return "null", nil
	}
	switch a := col.(type) {
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.StringView:
		return a.Value(i), nil
	case interface{ Value(int) []byte }:
		return binaryText(a.Value(i)), nil
	case *array.Dictionary:
		return cellText(a.Dictionary(), a.GetValueIndex(i))
	case *array.RunEndEncoded:
		return cellText(a.Values(), a.GetPhysicalIndex(i))
	}
	if s, ok := decimalText(col, i); ok {
		return s, nil
	}
	switch col.DataType().ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW,
		arrow.LARGE_LIST_VIEW, arrow.MAP, arrow.SPARSE_UNION, arrow.DENSE_UNION,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		b, err := appendJSON(nil, col, i)
		return strings.Trim(string(b), `"`), err
	}
	return col.ValueStr(i), nil
}
