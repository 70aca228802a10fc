package codec

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// FuzzSchemaMessage feeds arbitrary bytes to the schema verifier as a
// stream's schema. The verifier must never panic; what it accepts, arrow-go
// must parse without panicking (its reader turns a panic into an "unknown
// error" or "invalid message metadata" error), and the codec must fingerprint and plan without panicking.
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
		ir, err := ipc.NewReader(bytes.NewReader(b))
		if err != nil {
			// arrow-go recovers its own panics into these errors.
			if msg := err.Error(); strings.Contains(msg, "unknown error") || strings.Contains(msg, "invalid message metadata") {
				t.Fatalf("arrow-go panicked on a verified schema: %v", err)
			}
			return
		}
		schema := ir.Schema()
		ir.Release()
		fingerprint(schema)
		_, _ = newPlans(schema)
	})
}
