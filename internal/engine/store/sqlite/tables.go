package sqlite

import (
	"fmt"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// The engine keeps records in two tables, and a key's first byte, its
// store.Space, says which (inIndexTable). kv is a rowid table for the
// records that carry content (createKV says why rowid); kvi is a WITHOUT
// ROWID table for the index spaces, whose rows are small and are read as
// ranges. A WITHOUT ROWID table keeps each row in its key's b-tree, so
// rows adjacent in key order share pages whatever order they were written
// in; in the rowid table a row sits where it was inserted, and a scan of
// index entries written between other records seeks to a page of its own
// for each entry (SQLite "Clustered Indexes and the WITHOUT ROWID
// Optimization", section 4: when to use WITHOUT ROWID).

// table names one of the record tables. Its value indexes tableNames and
// a connection's per-table statements.
type table int

const (
	tableKV  table = iota // records with content
	tableKVI              // the index spaces
	tableCount
)

var tableNames = [tableCount]string{tableKV: "kv", tableKVI: "kvi"}

// inIndexTable reports whether the keys of space live in kvi. It is the
// only place that decides; Get, Put, Delete, Scan and the migration of
// version-1 files all follow it. Its answer for a space is persisted in
// every file: changing it needs a schema version and a migration.
func inIndexTable(space store.Space) bool {
	switch space {
	case store.SpaceBlobIndex:
		// Find Blobs by Tags scans tag entries, each valued with the
		// blob's tag set (a few dozen bytes); immutability's markers of
		// protected blobs are empty and scanned per container.
		return true
	case store.SpaceBlobExpiry, store.SpaceShareExpiry:
		// The reapers scan these from their start up to now; values are
		// empty.
		return true
	case store.SpaceFileIndex:
		// A file's range segments (an extent id and offsets), read in
		// offset order; link records and permissions, point reads of a
		// few hundred bytes.
		return true
	case store.SpaceExtentGC:
		// The extent collector scans it by instant; values are a few
		// bytes.
		return true
	}
	// Everything else stays in kv: the records with content (containers,
	// blobs with up to 1 KiB inline, uncommitted blocks, entities, files),
	// and SpaceMsgIndex, whose records are the queue messages themselves,
	// text of up to 64 KiB included (service/queue doc.go), which a WITHOUT
	// ROWID table would spill onto overflow pages and copy on every key
	// comparison meeting them. SpaceMeta and SpaceExtentRef are point reads.
	return false
}

// tableOf returns the table that holds key. The empty key is in no space
// and lives in kv.
func tableOf(key []byte) table {
	if len(key) == 0 || !inIndexTable(store.Space(key[0])) {
		return tableKV
	}
	return tableKVI
}

// scanTarget is what a Scan reads: one table, or both merged in key order.
type scanTarget int

const (
	scanKV   = scanTarget(tableKV)
	scanKVI  = scanTarget(tableKVI)
	scanBoth = scanTarget(tableCount)

	scanTargetCount = scanBoth + 1
)

// targetOf returns what a Scan of [start, end) (nil end: unbounded) must
// read: the one table holding every space the range can reach, or both.
func targetOf(start, end []byte) scanTarget {
	first, last, none := spacesOf(start, end)
	if none {
		return scanKV
	}
	want := tableOf([]byte{first})
	for b := int(first) + 1; b <= int(last); b++ {
		if tableOf([]byte{byte(b)}) != want {
			return scanBoth
		}
	}
	return scanTarget(want)
}

// spacesOf returns the first bytes that keys in [start, end) can have:
// first through last, or none when the range holds no key with a first
// byte (at most the empty key, which is in kv). A key starting with end[0]
// is below end only if end goes on past that byte.
func spacesOf(start, end []byte) (first, last byte, none bool) {
	if len(start) > 0 {
		first = start[0]
	}
	switch {
	case end == nil:
		last = 0xFF
	case len(end) == 0 || (len(end) == 1 && end[0] == 0):
		return 0, 0, true
	case len(end) == 1:
		last = end[0] - 1
	default:
		last = end[0]
	}
	return first, last, first > last
}

// indexSpacesWhere is the SQL condition selecting the keys of kvi's
// spaces, for the migration from version 1: one key range per run of
// adjacent index spaces.
func indexSpacesWhere() string {
	var ranges []string
	for b := 0; b < 256; b++ {
		if !inIndexTable(store.Space(b)) {
			continue
		}
		end := b + 1
		for end < 256 && inIndexTable(store.Space(end)) {
			end++
		}
		if end == 256 {
			ranges = append(ranges, fmt.Sprintf("k >= x'%02x'", b))
		} else {
			ranges = append(ranges, fmt.Sprintf("(k >= x'%02x' AND k < x'%02x')", b, end))
		}
		b = end
	}
	if len(ranges) == 0 {
		return "0"
	}
	return strings.Join(ranges, " OR ")
}
