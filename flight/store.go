package flight

import (
	"fmt"
	"strings"

	"github.com/arrowpack/arrowpack/codec"
)

// A Server stores the stream put under descriptor path [e1, e2, ...] in its
// directory as the arrowpack stream file "e1+e2+....apk", each element
// escaped: bytes other than ASCII letters, digits, '-', '_' and '.' (and a
// '.' that starts an element) are written %XX. The file name without ".apk"
// is the ticket of the stream.
const (
	fileExt      = ".apk"
	keySep       = '+'
	maxPathElems = 64
	maxKeyLen    = 240 // a file name is at most 255 bytes on common file systems
	// legacyTempPrefix starts the temporary files of servers older than
	// the durable package's naming; a starting Server removes them too.
	legacyTempPrefix = ".put-"
	errPathPrefix    = "arrowpack flight: descriptor path"
)

// keyOf returns the key (file name without ".apk") of a descriptor path.
func keyOf(path []string) (string, error) {
	if len(path) == 0 {
		return "", fmt.Errorf("%w: %s is empty", codec.ErrInvalidBatch, errPathPrefix)
	}
	if len(path) > maxPathElems {
		return "", fmt.Errorf("%w: %s has %d elements, at most %d allowed", codec.ErrInvalidBatch, errPathPrefix, len(path), maxPathElems)
	}
	var b strings.Builder
	for i, e := range path {
		if e == "" {
			return "", fmt.Errorf("%w: %s %q has an empty element", codec.ErrInvalidBatch, errPathPrefix, path)
		}
		if i > 0 {
			b.WriteByte(keySep)
		}
		for j := 0; j < len(e); j++ {
			c := e[j]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' && j > 0 {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
		if b.Len() > maxKeyLen {
			return "", fmt.Errorf("%w: %s is too long for a file name (more than %d bytes escaped)", codec.ErrInvalidBatch, errPathPrefix, maxKeyLen)
		}
	}
	return b.String(), nil
}

// pathName returns the path a key stands for, its elements joined by "/":
// what the user gave, for messages, rather than the store's escaped file
// name. A key no path makes is returned as it is.
func pathName(key string) string {
	p, err := pathOf(key)
	if err != nil {
		return key
	}
	return strings.Join(p, "/")
}

// pathOf returns the descriptor path of a key, and an error for a string
// that keyOf cannot have made (so that a ticket never names a file outside
// the directory or one the server did not write).
func pathOf(key string) ([]string, error) {
	var path []string
	var e []byte
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == keySep:
			path = append(path, string(e))
			e = e[:0]
		case c == '%' && i+2 < len(key):
			var v byte
			if _, err := fmt.Sscanf(key[i+1:i+3], "%02X", &v); err != nil {
				return nil, fmt.Errorf("bad escape %q", key[i:i+3])
			}
			e = append(e, v)
			i += 2
		default:
			e = append(e, c)
		}
	}
	path = append(path, string(e))
	if k, err := keyOf(path); err != nil || k != key {
		return nil, fmt.Errorf("%q is not a key this server makes", key)
	}
	return path, nil
}
