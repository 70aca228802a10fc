package codec

import (
	"errors"
	"testing"
)

// FuzzSchemaMessage feeds arbitrary bytes to the schema verifier as a
// stream's schema. The verifier must never panic; what it accepts, arrow-go
// must parse without panicking, and the codec must fingerprint and plan
// without panicking.
// Seeds: schemas arrow-go writes for every type and the hand-built hostile
// messages of TestVerifySchemaHostile.
func FuzzSchemaMessage(f *testing.F) {
	valid := validSchemas()
	for _, s := range valid[:min(len(valid), 40)] {
		f.Add(ipcSchemaBytes(f, s))
	}
	f.Add(message(validFBSchema()))
	for _, b := range hostileSchemas() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := verifySchemaMessage(b); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("verifier error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		// With the tests' onRecoveredPanic, a panic arrow-go or the codec
		// recovered from while parsing fails here.
		schema, err := ReadSchema(b)
		if err != nil {
			return
		}
		fingerprint(schema)
		_, _ = newPlans(schema)
	})
}
