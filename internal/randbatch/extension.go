package randbatch

import (
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The generator's extension types are small ones of its own, registered with
// arrow-go's extension registry at init; arrow-go's canonical extensions
// package would pull the parquet packages into every test binary.
func init() {
	for _, t := range []arrow.ExtensionType{NewUUIDType(), NewLabelsType()} {
		if err := arrow.RegisterExtensionType(t); err != nil {
			panic(err)
		}
	}
}

// UUIDType is an extension type for UUIDs, stored as fixed_size_binary(16).
type UUIDType struct {
	arrow.ExtensionBase
}

// NewUUIDType returns the UUID extension type.
func NewUUIDType() *UUIDType {
	return &UUIDType{ExtensionBase: arrow.ExtensionBase{Storage: &arrow.FixedSizeBinaryType{ByteWidth: 16}}}
}

// ArrayType returns the type of the arrays of UUIDType.
func (*UUIDType) ArrayType() reflect.Type { return reflect.TypeOf(UUIDArray{}) }

// ExtensionName returns "arrowpack.uuid".
func (*UUIDType) ExtensionName() string { return "arrowpack.uuid" }

// String returns the name of the type.
func (t *UUIDType) String() string { return "extension<" + t.ExtensionName() + ">" }

// Serialize returns the type's metadata, which is empty.
func (*UUIDType) Serialize() string { return "" }

// Deserialize returns a UUIDType if storage is fixed_size_binary(16).
func (*UUIDType) Deserialize(storage arrow.DataType, _ string) (arrow.ExtensionType, error) {
	t := NewUUIDType()
	if !arrow.TypeEqual(storage, t.Storage) {
		return nil, fmt.Errorf("randbatch: invalid storage type %s for %s", storage, t.ExtensionName())
	}
	return t, nil
}

// ExtensionEquals reports whether other is a UUIDType too.
func (t *UUIDType) ExtensionEquals(other arrow.ExtensionType) bool {
	return other.ExtensionName() == t.ExtensionName()
}

// UUIDArray is an array of UUIDType.
type UUIDArray struct {
	array.ExtensionArrayBase
}

// LabelsType is an extension type for a row's set of labels, stored as
// list<utf8>: an extension over nested storage.
type LabelsType struct {
	arrow.ExtensionBase
}

// NewLabelsType returns the labels extension type.
func NewLabelsType() *LabelsType {
	return &LabelsType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.ListOf(arrow.BinaryTypes.String)}}
}

// ArrayType returns the type of the arrays of LabelsType.
func (*LabelsType) ArrayType() reflect.Type { return reflect.TypeOf(LabelsArray{}) }

// ExtensionName returns "arrowpack.labels".
func (*LabelsType) ExtensionName() string { return "arrowpack.labels" }

// String returns the name of the type.
func (t *LabelsType) String() string { return "extension<" + t.ExtensionName() + ">" }

// Serialize returns the type's metadata, which is empty.
func (*LabelsType) Serialize() string { return "" }

// Deserialize returns a LabelsType if storage is list<utf8>.
func (*LabelsType) Deserialize(storage arrow.DataType, _ string) (arrow.ExtensionType, error) {
	t := NewLabelsType()
	if !arrow.TypeEqual(storage, t.Storage) {
		return nil, fmt.Errorf("randbatch: invalid storage type %s for %s", storage, t.ExtensionName())
	}
	return t, nil
}

// ExtensionEquals reports whether other is a LabelsType too.
func (t *LabelsType) ExtensionEquals(other arrow.ExtensionType) bool {
	return other.ExtensionName() == t.ExtensionName()
}

// LabelsArray is an array of LabelsType.
type LabelsArray struct {
	array.ExtensionArrayBase
}
