package extent

import (
	"context"
	"crypto/md5"
	"hash"
)

type withoutMD5Key struct{}

// WithoutMD5 marks ctx so that a Write under it may skip the MD5 of the
// content and leave Info.MD5 zero. A caller that answers with a CRC-64
// instead (Put Block, Put Page and Append Block without Content-MD5) has no
// use for it, and at some 450 MB/s per core MD5 was most of the CPU a large
// upload cost.
func WithoutMD5(ctx context.Context) context.Context {
	return context.WithValue(ctx, withoutMD5Key{}, true)
}

// WantsMD5 reports whether a Write under ctx must compute Info.MD5.
func WantsMD5(ctx context.Context) bool { return ctx.Value(withoutMD5Key{}) == nil }

// ContentHash returns the hash an engine's Write under ctx feeds the content
// to: MD5, or, under WithoutMD5, one that ignores its input and sums to zero.
func ContentHash(ctx context.Context) hash.Hash {
	if WantsMD5(ctx) {
		return md5.New()
	}
	return zeroHash{}
}

// SumMD5 is md5.Sum of data, or zero under WithoutMD5.
func SumMD5(ctx context.Context, data []byte) [md5.Size]byte {
	if WantsMD5(ctx) {
		return md5.Sum(data)
	}
	return [md5.Size]byte{}
}

// zeroHash stands in for MD5 when none is wanted.
type zeroHash struct{}

func (zeroHash) Write(p []byte) (int, error) { return len(p), nil }
func (zeroHash) Sum(b []byte) []byte         { return append(b, make([]byte, md5.Size)...) }
func (zeroHash) Reset()                      {}
func (zeroHash) Size() int                   { return md5.Size }
func (zeroHash) BlockSize() int              { return md5.BlockSize }
