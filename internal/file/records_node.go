package file

import (
	"bytes"
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/etag"
	"github.com/lazuli-storage/lazuli/internal/file/smbstate"
	"github.com/lazuli-storage/lazuli/internal/lease"
	"github.com/lazuli-storage/lazuli/internal/store"
)

// Node record fields (tags).
const (
	ntagCore     = 1 // kind, name, ids, etag, SMB attributes and times, permission key, size
	ntagProps    = 2 // content headers
	ntagMetadata = 3
	ntagLease    = 4
	ntagCopy     = 5
	ntagSMB      = 6 // open handles and delete-pending
)

// Node kinds; stored, never renumber.
const (
	kindFile = 1
	kindDir  = 2
)

// node is the stored state of a directory or file.
type node struct {
	Dir bool
	// Name is the entry's own name as written ("" for the root).
	Name     string
	ID       uint64
	ParentID uint64
	ETag     etag.Tick
	SMB      smbProps
	Metadata metadata

	// Files only.
	Size  int64
	Props contentProps
	Lease lease.Lease
	Copy  copyState

	// State an SMB client holds; REST honours it (smbstate).
	Opens         []smbstate.Open
	DeletePending bool
}

// smbProps are the SMB properties of a file or directory.
type smbProps struct {
	Attrs   attributes
	Created time.Time
	Written time.Time // last write
	Changed time.Time
	PermKey string
}

// contentProps are the HTTP properties stored with a file.
type contentProps struct {
	Type, Encoding, Language, Disposition, CacheControl string
	MD5                                                 []byte
}

// copyState is the outcome of the last Copy File into this file.
type copyState struct {
	ID, Source, Status, Description string
	Copied, Total                   int64
	Completed                       time.Time
}

// LastModified is the instant of the node's current ETag.
func (n *node) LastModified() time.Time { return n.ETag.Time() }

func nodeKey(account, share, snap, parent, name string) []byte {
	return store.NewKey(store.SpaceFile).Str(account).Str(share).Str(snap).Str(parent).Str(name)
}

// nodeKeyOf is the key of the entry at p.
func nodeKeyOf(account, share, snap string, p filePath) []byte {
	if p.isRoot() {
		return nodeKey(account, share, snap, "", "")
	}
	return nodeKey(account, share, snap, p.parentKey(), p.folded[len(p.folded)-1])
}

// childrenPrefix is the key prefix of the entries directly in the
// directory whose folded path is dir.
func childrenPrefix(account, share, snap, dir string) store.Key {
	return store.NewKey(store.SpaceFile).Str(account).Str(share).Str(snap).Str(dir)
}

// namePrefix is the key prefix of the entries of dir whose folded names
// start with prefix: the name element without its terminator.
func namePrefix(account, share, snap, dir, prefix string) []byte {
	k := childrenPrefix(account, share, snap, dir).Str(prefix)
	return k[:len(k)-2]
}

// descendantsPrefix is the key prefix of the entries below the directory
// whose folded path is dir, other than its direct children; dir must not be
// the root (every entry of a snapshot is below the root: use snapPrefix).
func descendantsPrefix(account, share, snap, dir string) []byte {
	k := childrenPrefix(account, share, snap, dir+"/")
	return k[:len(k)-2]
}

// snapPrefix is the key prefix of every entry of one share or snapshot.
func snapPrefix(space store.Space, account, share, snap string) []byte {
	return store.NewKey(space).Str(account).Str(share).Str(snap)
}

// nodeKeyParts returns the folded parent path and name of a node key.
func nodeKeyParts(key []byte) (parent, name string, err error) {
	r := store.ReadKey(key, store.SpaceFile)
	r.Str()
	r.Str()
	r.Str()
	parent = r.Str()
	name = r.Str()
	return parent, name, r.Err()
}

func (n *node) encode() []byte {
	e := encoder{b: make([]byte, 0, 96+len(n.Name))}
	e.byte(recordFormat)
	e.field(ntagCore, func(e *encoder) {
		kind := byte(kindFile)
		if n.Dir {
			kind = kindDir
		}
		e.byte(kind)
		e.str(n.Name)
		e.uvarint(n.ID)
		e.uvarint(n.ParentID)
		e.uvarint(uint64(n.ETag))
		e.uvarint(uint64(n.SMB.Attrs))
		e.time(n.SMB.Created)
		e.time(n.SMB.Written)
		e.time(n.SMB.Changed)
		e.str(n.SMB.PermKey)
		e.varint(n.Size)
	})
	if !n.Props.empty() {
		e.field(ntagProps, func(e *encoder) {
			p := &n.Props
			e.str(p.Type)
			e.str(p.Encoding)
			e.str(p.Language)
			e.str(p.Disposition)
			e.str(p.CacheControl)
			e.bytes(p.MD5)
		})
	}
	if len(n.Metadata) > 0 {
		e.field(ntagMetadata, n.Metadata.encode)
	}
	if n.Lease.ID != "" {
		e.field(ntagLease, func(e *encoder) { encodeLease(e, n.Lease) })
	}
	if n.Copy.ID != "" {
		e.field(ntagCopy, func(e *encoder) {
			c := &n.Copy
			e.str(c.ID)
			e.str(c.Source)
			e.str(c.Status)
			e.str(c.Description)
			e.varint(c.Copied)
			e.varint(c.Total)
			e.time(c.Completed)
		})
	}
	if len(n.Opens) > 0 || n.DeletePending {
		e.field(ntagSMB, n.encodeSMB)
	}
	return e.b
}

func (n *node) encodeSMB(e *encoder) {
	pending := byte(0)
	if n.DeletePending {
		pending = 1
	}
	e.byte(pending)
	e.uvarint(uint64(len(n.Opens)))
	for _, o := range n.Opens {
		e.uvarint(o.HandleID)
		e.uvarint(o.SessionID)
		e.str(o.ClientIP)
		e.str(o.ClientName)
		e.time(o.OpenTime)
		e.time(o.LastReconnectTime)
		e.byte(byte(o.Access))
		e.byte(byte(o.Share))
	}
}

func (n *node) decodeSMB(d *decoder) {
	n.DeletePending = d.byte() == 1
	count := d.count()
	for i := 0; i < count && d.err == nil; i++ {
		n.Opens = append(n.Opens, smbstate.Open{HandleID: d.uvarint(), SessionID: d.uvarint(),
			ClientIP: d.str(), ClientName: d.str(), OpenTime: d.time(), LastReconnectTime: d.time(),
			Access: smbstate.Access(d.byte()), Share: smbstate.ShareMode(d.byte())})
	}
}

func (p *contentProps) empty() bool {
	return p.Type == "" && p.Encoding == "" && p.Language == "" && p.Disposition == "" &&
		p.CacheControl == "" && len(p.MD5) == 0
}

// decodeNode decodes a stored node. The value belongs to the store, so
// everything kept is copied (strings by conversion, MD5 explicitly).
func decodeNode(v []byte) (*node, error) {
	if len(v) == 0 || v[0] != recordFormat {
		return nil, errBadRecord
	}
	n := &node{}
	d := decoder{b: v[1:]}
	d.fields(func(tag byte, p *decoder) {
		switch tag {
		case ntagCore:
			n.Dir = p.byte() == kindDir
			n.Name = p.str()
			n.ID = p.uvarint()
			n.ParentID = p.uvarint()
			n.ETag = etag.Tick(p.uvarint())
			n.SMB.Attrs = attributes(p.uvarint())
			n.SMB.Created = p.time()
			n.SMB.Written = p.time()
			n.SMB.Changed = p.time()
			n.SMB.PermKey = p.str()
			n.Size = p.varint()
		case ntagProps:
			n.Props = contentProps{Type: p.str(), Encoding: p.str(), Language: p.str(),
				Disposition: p.str(), CacheControl: p.str()}
			if md5 := p.raw(); len(md5) > 0 {
				n.Props.MD5 = bytes.Clone(md5)
			}
		case ntagMetadata:
			n.Metadata = decodeMetadata(p)
		case ntagLease:
			n.Lease = decodeLease(p)
		case ntagCopy:
			n.Copy = copyState{ID: p.str(), Source: p.str(), Status: p.str(), Description: p.str(),
				Copied: p.varint(), Total: p.varint(), Completed: p.time()}
		case ntagSMB:
			n.decodeSMB(p)
		}
	})
	return n, d.err
}

// loadNode reads the entry at p; found is false when there is none.
func loadNode(tx store.Tx, account, share, snap string, p filePath) (*node, bool, error) {
	v, err := tx.Get(nodeKeyOf(account, share, snap, p))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	n, err := decodeNode(v)
	return n, err == nil, err
}

func saveNode(tx store.Tx, account, share, snap string, p filePath, n *node) error {
	return tx.Put(nodeKeyOf(account, share, snap, p), n.encode())
}
