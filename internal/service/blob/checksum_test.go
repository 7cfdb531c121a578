package blob_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"hash/crc64"
	"net/http"
	"testing"
)

// TestResponseChecksums pins which checksum a write answers with, as the
// real service's recorded responses show: Put Blob both (the MD5 is kept as
// the blob's property); Put Block and Put Page the CRC-64 unless the request
// carried Content-MD5, and the MD5 alone for versions before 2019-02-02.
func TestResponseChecksums(t *testing.T) {
	e := start(t)
	e.container("sums")
	data := bytes.Repeat([]byte("lazuli "), 1024) // 7168 bytes: whole pages
	md5sum := md5.Sum(data)
	wantMD5 := base64.StdEncoding.EncodeToString(md5sum[:])
	wantCRC := base64.StdEncoding.EncodeToString(binary.LittleEndian.AppendUint64(nil, crc64.Checksum(data, crc64.MakeTable(0x9A6C9329AC4BC9B5))))
	block := "sums/b?comp=block&blockid=" + base64.StdEncoding.EncodeToString([]byte("blk1"))
	cases := []struct {
		name, path, version string
		header              http.Header
		md5, crc            bool
	}{
		{"put blob", "sums/whole", "2025-01-05", nil, true, true},
		{"put blob before 2019-02-02", "sums/old", "2018-11-09", nil, true, false},
		{"put block", block, "2025-01-05", nil, false, true},
		{"put block with Content-MD5", block, "2025-01-05", http.Header{"Content-Md5": {wantMD5}}, true, false},
		{"put block before 2019-02-02", block, "2018-11-09", nil, true, false},
		// From 2026-10-06 a declared Content-MD5 gets both checksums
		// (azblob's recorded TestStageBlockMD5WithCRC64Return,
		// TestAppendBlockMD5WithCRC64Return, TestUploadPagesMD5WithCRC64Return;
		// Azure/azure-sdk-for-go#27197).
		{"put block with Content-MD5, 2026-10-06", block, "2026-10-06", http.Header{"Content-Md5": {wantMD5}}, true, true},
		{"put page with Content-MD5, 2026-10-06", "sums/pages?comp=page", "2026-10-06",
			http.Header{"X-Ms-Page-Write": {"update"}, "X-Ms-Range": {"bytes=0-7167"}, "Content-Md5": {wantMD5}}, true, true},
		{"put page", "sums/pages?comp=page", "2025-01-05", http.Header{"X-Ms-Page-Write": {"update"}, "X-Ms-Range": {"bytes=0-7167"}}, false, true},
	}
	e.raw(http.MethodPut, "sums/pages", http.Header{"X-Ms-Blob-Type": {"PageBlob"}, "X-Ms-Blob-Content-Length": {"8192"}}, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPut, e.in.BlobURL+tc.path, bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.header {
				req.Header[k] = v
			}
			req.Header.Set("X-Ms-Blob-Type", "BlockBlob")
			req.Header.Set("X-Ms-Version", tc.version)
			signRequest(t, req)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
			}
			gotMD5, gotCRC := resp.Header.Get("Content-Md5"), resp.Header.Get("X-Ms-Content-Crc64")
			if tc.md5 != (gotMD5 != "") || (tc.md5 && gotMD5 != wantMD5) {
				t.Errorf("Content-MD5 %q, want present=%v (%s)", gotMD5, tc.md5, wantMD5)
			}
			if tc.crc != (gotCRC != "") || (tc.crc && gotCRC != wantCRC) {
				t.Errorf("x-ms-content-crc64 %q, want present=%v (%s)", gotCRC, tc.crc, wantCRC)
			}
		})
	}
}

// TestBothChecksumsRefused pins 400 BothCrc64AndMd5HeaderPresent for a write
// that declares both Content-MD5 and x-ms-content-crc64: the Put Blob, Put
// Block, Append Block and Put Page reference pages say such a request fails
// with 400, and azure-sdk-for-java's live tests
// (BlobContentValidationAsyncUploadTests, "...WithCustomerProvidedMd5AndCrc64Header")
// see the message "Both x-ms-content-crc64 header and Content-MD5 header are
// present." for all four.
func TestBothChecksumsRefused(t *testing.T) {
	e := start(t)
	e.container("both")
	e.raw(http.MethodPut, "both/pages", http.Header{"X-Ms-Blob-Type": {"PageBlob"}, "X-Ms-Blob-Content-Length": {"512"}}, nil)
	e.raw(http.MethodPut, "both/log", http.Header{"X-Ms-Blob-Type": {"AppendBlob"}}, nil)
	data := bytes.Repeat([]byte{7}, 512)
	md5sum := md5.Sum(data)
	both := http.Header{
		"Content-Md5":        {base64.StdEncoding.EncodeToString(md5sum[:])},
		"X-Ms-Content-Crc64": {base64.StdEncoding.EncodeToString(binary.LittleEndian.AppendUint64(nil, crc64.Checksum(data, crc64.MakeTable(0x9A6C9329AC4BC9B5))))},
	}
	with := func(extra http.Header) http.Header {
		h := both.Clone()
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	cases := []struct {
		name, path string
		header     http.Header
	}{
		{"put blob", "both/whole", with(http.Header{"X-Ms-Blob-Type": {"BlockBlob"}})},
		{"put block", "both/b?comp=block&blockid=" + base64.StdEncoding.EncodeToString([]byte("blk1")), both},
		{"append block", "both/log?comp=appendblock", both},
		{"put page", "both/pages?comp=page", with(http.Header{"X-Ms-Page-Write": {"update"}, "X-Ms-Range": {"bytes=0-511"}})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.raw(http.MethodPut, tc.path, tc.header, data)
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Ms-Error-Code") != "BothCrc64AndMd5HeaderPresent" {
				t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
			}
		})
	}
}

// TestRangeBothChecksumsRefused pins 400 BothCrc64AndMd5RangeHeaderPresent
// for a ranged Get Blob asking for both x-ms-range-get-content-md5 and
// x-ms-range-get-content-crc64: the service's status table
// (CommonStatusEntries.BothCrc64AndMd5RangeHeaderPresent, "Both
// x-ms-range-get-content-crc64 header and x-ms-range-get-content-md5 header
// are present.") refuses the pair, where each alone is served.
func TestRangeBothChecksumsRefused(t *testing.T) {
	e := start(t)
	e.upload(e.container("rangesum"), "b", bytes.Repeat([]byte{3}, 64))
	rng := http.Header{"X-Ms-Range": {"bytes=0-15"}}
	with := func(names ...string) http.Header {
		h := rng.Clone()
		for _, n := range names {
			h.Set(n, "true")
		}
		return h
	}
	for _, one := range []string{"X-Ms-Range-Get-Content-Md5", "X-Ms-Range-Get-Content-Crc64"} {
		if resp := e.raw(http.MethodGet, "rangesum/b", with(one), nil); resp.StatusCode != http.StatusPartialContent {
			t.Fatalf("%s alone: %d", one, resp.StatusCode)
		}
	}
	resp := e.raw(http.MethodGet, "rangesum/b", with("X-Ms-Range-Get-Content-Md5", "X-Ms-Range-Get-Content-Crc64"), nil)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Ms-Error-Code") != "BothCrc64AndMd5RangeHeaderPresent" {
		t.Fatalf("both: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
}
