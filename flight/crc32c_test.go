package flight

import "hash/crc32"

// castagnoli is hash/crc32's Castagnoli table: the tests' reference for the
// checksums of blocks, independent of codec.Checksum and UpdateCRC32C.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)
