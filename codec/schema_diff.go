package codec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// SchemaDiff returns the first difference between the fields of got and of
// want, in a few words naming want as other ("the input"): "it has 3
// fields, the input 2", "field 1 is "b", in the input "a"", "field d is
// date32, in the input date64", "field d has nullable true, in the input
// false"; or "" if their fields have the same names, types and
// nullability. Messages say this rather than print two whole schemas.
func SchemaDiff(want, got *arrow.Schema, other string) string {
	if want.NumFields() != got.NumFields() {
		return fmt.Sprintf("it has %d fields, %s %d", got.NumFields(), other, want.NumFields())
	}
	for i := range want.NumFields() {
		a, b := want.Field(i), got.Field(i)
		switch {
		case a.Name != b.Name:
			return fmt.Sprintf("field %d is %q, in %s %q", i, b.Name, other, a.Name)
		case !arrow.TypeEqual(a.Type, b.Type):
			return fmt.Sprintf("field %s is %s, in %s %s", a.Name, b.Type, other, a.Type)
		case a.Nullable != b.Nullable:
			return fmt.Sprintf("field %s has nullable %v, in %s %v", a.Name, b.Nullable, other, a.Nullable)
		}
	}
	return ""
}
