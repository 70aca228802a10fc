//go:build !purego

package arrowpack

func init() {
	for _, im := range crcImpls {
		switch im {
		case &crcYMM:
			crcTestImpls = append(crcTestImpls, &crcImpl{"vpclmulqdq-min", foldFrom(crc32cFoldYMM, 32, 32*4)})
		case &crcXMM:
			crcTestImpls = append(crcTestImpls, &crcImpl{"pclmulqdq-min", foldFrom(crc32cFoldXMM, 16, 16*4)})
		}
	}
}
