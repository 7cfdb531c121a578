package smb

import (
	"path"
	"sort"
	"sync"
	"time"
)

// CHANGE_NOTIFY (MS-SMB2 3.3.5.19): a watch on a directory handle answers
// with the changes since the handle's previous answer (or since its first
// CHANGE_NOTIFY), at once when there are some, else asynchronously
// (STATUS_PENDING) when the next change comes. Changes are found by
// comparing listings of the directory (and, with WATCH_TREE, everything
// below it) by file id, so writes over SMB or REST, and those of other
// nodes, are all seen: this process's writes ring the change feed and are
// answered at once, other nodes' are found by a look every notifyPoll.

const (
	notifyWatchTree     = 0x1
	statusNotifyCleanup = 0x0000010B
	statusNotifyEnumDir = 0x0000010C
	statusInternalError = 0xC00000E5
	// notifyPoll is how often a pending watch looks again without a ring.
	notifyPoll = time.Second
	// maxWatched bounds the entries one watch lists.
	maxWatched = 10000
)

// Completion filter bits (MS-SMB2 2.2.35) and actions (MS-FSCC 2.7.1).
const (
	notifyFileName   = 0x1
	notifyDirName    = 0x2
	notifyAttributes = 0x4
	notifySize       = 0x8
	notifyLastWrite  = 0x10
	notifyCreation   = 0x40

	actionAdded    = 1
	actionRemoved  = 2
	actionModified = 3
	actionOldName  = 4
	actionNewName  = 5
)

// watched is what a watch remembers of one entry.
type watched struct {
	name                      string // relative to the watched directory, `\`-separated
	dir                       bool
	size                      int64
	attrs                     uint32
	written, created, changed time.Time
}

// watch is a directory handle's view for CHANGE_NOTIFY.
type watch struct {
	mu        sync.Mutex
	recursive bool
	seen      map[uint64]watched // by file id
}

type change struct {
	action uint32
	name   string
}

func (c *conn) changeNotify(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 8)
	if st != statusOK {
		return st, nil
	}
	b := r.body
	if !o.dir {
		return statusInvalidParameter, nil
	}
	recursive, outLen, filter := le.Uint16(b[2:])&notifyWatchTree != 0, le.Uint32(b[4:]), le.Uint32(b[24:])
	account, share, dir := r.sess.account, r.tree.share, o.path
	feed := c.srv.changes
	gen := feed.Generation()
	if o.watch == nil || o.watch.recursive != recursive {
		seen, err := c.listWatched(account, share, dir, recursive)
		if err != nil {
			return statusOf(err), nil
		}
		o.watch = &watch{recursive: recursive, seen: seen}
	}
	w := o.watch
	check := func() (uint32, []byte, bool) {
		now, err := c.listWatched(account, share, dir, recursive)
		if err != nil {
			return statusOf(err), nil, true
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		changes := diffWatched(w.seen, now, filter)
		w.seen = now
		if len(changes) == 0 {
			return 0, nil, false
		}
		return notifyAnswer(changes, outLen)
	}
	if st, body, done := check(); done {
		return st, body
	}
	if r.h.next != 0 {
		// A watch that would wait inside a compound, not as its last
		// request, fails as on Windows (MS-SMB2 <162>).
		return statusInternalError, nil
	}
	return c.goAsync(r, o, statusNotifyCleanup, func(stop <-chan struct{}) (uint32, []byte) {
		for {
			feed.Wait(gen, notifyPoll, stop)
			select {
			case <-stop:
				return statusCancelled, nil
			default:
			}
			gen = feed.Generation()
			if st, body, done := check(); done {
				return st, body
			}
		}
	})
}

// listWatched lists the directory at dir, and with recursive everything
// below it, by file id.
func (c *conn) listWatched(account, share, dir string, recursive bool) (map[uint64]watched, error) {
	out := map[uint64]watched{}
	pending := []string{""}
	for len(pending) > 0 && len(out) < maxWatched {
		rel := pending[0]
		pending = pending[1:]
		entries, err := c.srv.fs.List(c.ctx(), account, share, path.Join(dir, rel))
		if err != nil {
			if rel == "" {
				return nil, err
			}
			continue // a subdirectory that went meanwhile
		}
		for _, e := range entries {
			name := e.Name
			if rel != "" {
				name = rel + "/" + e.Name
			}
			out[e.ID] = watched{name: name, dir: e.Dir, size: e.Size, attrs: e.Attrs, written: e.Written,
				created: e.Created, changed: e.Changed}
			if recursive && e.Dir {
				pending = append(pending, name)
			}
		}
	}
	return out, nil
}

// diffWatched lists the changes from before to now that filter asks for,
// in name order (a rename's old and new names together, under the old).
func diffWatched(before, now map[uint64]watched, filter uint32) []change {
	var groups [][]change
	nameBit := func(e watched) uint32 {
		if e.dir {
			return notifyDirName
		}
		return notifyFileName
	}
	for id, old := range before {
		cur, ok := now[id]
		switch {
		case !ok:
			if filter&nameBit(old) != 0 {
				groups = append(groups, []change{{actionRemoved, old.name}})
			}
		case cur.name != old.name:
			if filter&nameBit(old) != 0 {
				groups = append(groups, []change{{actionOldName, old.name}, {actionNewName, cur.name}})
			}
		case filter&modifiedBits(old, cur) != 0:
			groups = append(groups, []change{{actionModified, cur.name}})
		}
	}
	for id, cur := range now {
		if _, ok := before[id]; !ok && filter&nameBit(cur) != 0 {
			groups = append(groups, []change{{actionAdded, cur.name}})
		}
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i][0], groups[j][0]
		if a.name != b.name {
			return a.name < b.name
		}
		return a.action < b.action
	})
	var out []change
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// modifiedBits are the filter bits a change of an entry in place touches.
func modifiedBits(old, cur watched) uint32 {
	var bits uint32
	if old.size != cur.size {
		bits |= notifySize
	}
	if !old.written.Equal(cur.written) {
		bits |= notifyLastWrite
	}
	if old.attrs != cur.attrs || !old.changed.Equal(cur.changed) {
		bits |= notifyAttributes
	}
	if !old.created.Equal(cur.created) {
		bits |= notifyCreation
	}
	return bits
}

// notifyAnswer encodes changes as FILE_NOTIFY_INFORMATION entries, or
// answers STATUS_NOTIFY_ENUM_DIR when they do not fit in outLen bytes.
func notifyAnswer(changes []change, outLen uint32) (uint32, []byte, bool) {
	var out []byte
	last := -1
	for _, ch := range changes {
		name := utf16le(windowsPath(ch.name))
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		if last >= 0 {
			le.PutUint32(out[last:], uint32(len(out)-last))
		}
		last = len(out)
		e := newBuf(12).u32(4, ch.action).u32(8, uint32(len(name)))
		out = append(append(out, e...), name...)
	}
	if uint32(len(out)) > outLen {
		return statusNotifyEnumDir, notifyBody(nil), true
	}
	return statusOK, notifyBody(out), true
}

// notifyBody is a CHANGE_NOTIFY response body around buf.
func notifyBody(buf []byte) []byte {
	b := newBuf(8).u16(0, 9).u16(2, headerSize+8).u32(4, uint32(len(buf)))
	if len(buf) == 0 {
		return append(b.u16(2, 0), 0)
	}
	return append(b, buf...)
}

func windowsPath(p string) string {
	out := []byte(p)
	for i, c := range out {
		if c == '/' {
			out[i] = '\\'
		}
	}
	return string(out)
}
