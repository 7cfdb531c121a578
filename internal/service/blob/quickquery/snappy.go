package quickquery

import bin "encoding/binary"

// snappyDecode decodes a Snappy block (Parquet's SNAPPY codec): the
// decoded length, then literals and back-references.
func snappyDecode(src []byte) ([]byte, error) {
	bad := parquetError("a SNAPPY page is malformed")
	n, k := bin.Uvarint(src)
	if k <= 0 || n > maxParquetBytes {
		return nil, bad
	}
	dst := make([]byte, 0, n)
	for s := k; s < len(src); {
		tag := src[s]
		s++
		var length, offset int
		switch tag & 3 {
		case 0: // literal
			length = int(tag >> 2)
			if length >= 60 {
				extra := length - 59
				if s+extra > len(src) {
					return nil, bad
				}
				length = 0
				for i := 0; i < extra; i++ {
					length |= int(src[s+i]) << (8 * i)
				}
				s += extra
			}
			length++
			if length < 0 || s+length > len(src) {
				return nil, bad
			}
			dst = append(dst, src[s:s+length]...)
			s += length
			continue
		case 1:
			if s >= len(src) {
				return nil, bad
			}
			length = 4 + int(tag>>2)&7
			offset = int(tag>>5)<<8 | int(src[s])
			s++
		case 2:
			if s+2 > len(src) {
				return nil, bad
			}
			length = 1 + int(tag>>2)
			offset = int(bin.LittleEndian.Uint16(src[s:]))
			s += 2
		case 3:
			if s+4 > len(src) {
				return nil, bad
			}
			length = 1 + int(tag>>2)
			offset = int(bin.LittleEndian.Uint32(src[s:]))
			s += 4
		}
		if offset <= 0 || offset > len(dst) || uint64(len(dst)+length) > n {
			return nil, bad
		}
		for i := 0; i < length; i++ { // byte by byte: the copy may overlap itself
			dst = append(dst, dst[len(dst)-offset])
		}
	}
	if uint64(len(dst)) != n {
		return nil, bad
	}
	return dst, nil
}
