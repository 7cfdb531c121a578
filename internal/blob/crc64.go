package blob

import "encoding/binary"

// crc64Poly is the (reversed) polynomial of Azure Storage's CRC-64, the one
// x-ms-content-crc64 carries.
const crc64Poly = 0x9A6C9329AC4BC9B5

// crc64Slices are the slicing-by-8 tables of crc64Poly, built once.
// hash/crc64 keeps such tables only for its two standard polynomials and
// rebuilds 16 KiB of them on every Write of 2 KiB or more for any other, so
// a body checksummed chunk by chunk paid for a table per read.
var crc64Slices = func() *[8][256]uint64 {
	var t [8][256]uint64
	for i := range 256 {
		crc := uint64(i)
		for range 8 {
			if crc&1 == 1 {
				crc = crc>>1 ^ crc64Poly
			} else {
				crc >>= 1
			}
		}
		t[0][i] = crc
	}
	for i := range 256 {
		crc := t[0][i]
		for j := 1; j < 8; j++ {
			crc = t[0][crc&0xff] ^ crc>>8
			t[j][i] = crc
		}
	}
	return &t
}()

// crc64Update returns the CRC-64 of the bytes crc covered followed by p
// (crc64Update(0, p) is the checksum of p).
func crc64Update(crc uint64, p []byte) uint64 {
	t := crc64Slices
	crc = ^crc
	for len(p) >= 8 {
		crc ^= binary.LittleEndian.Uint64(p)
		crc = t[7][crc&0xff] ^ t[6][crc>>8&0xff] ^ t[5][crc>>16&0xff] ^ t[4][crc>>24&0xff] ^
			t[3][crc>>32&0xff] ^ t[2][crc>>40&0xff] ^ t[1][crc>>48&0xff] ^ t[0][crc>>56]
		p = p[8:]
	}
	for _, b := range p {
		crc = t[0][byte(crc)^b] ^ crc>>8
	}
	return ^crc
}

// crc64Bytes is the checksum of p as x-ms-content-crc64 carries it: eight
// little-endian bytes.
func crc64Bytes(p []byte) []byte {
	return binary.LittleEndian.AppendUint64(nil, crc64Update(0, p))
}
