package file

import (
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/leaserecord"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// Records are encoded with the binary codec of package record (varints and
// length-prefixed strings in tagged fields): listings decode one record per
// entry and every file request decodes one.

// recordFormat is the first byte of every record this package writes.
const recordFormat = 1

// Node record fields (tags).
const (
	ntagCore     = 1 // kind, name, ids, etag, SMB attributes and times, permission key, size
	ntagProps    = 2 // content headers
	ntagMetadata = 3
	ntagLease    = 4
	ntagCopy     = 5
	ntagSMB      = 6 // open handles and delete-pending
	ntagOpenNode = 7 // the node holding each open, in ntagSMB's order
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
	Metadata metadata.Set

	// Files only.
	Size  int64
	Props contentprops.Props
	Lease lease.Lease
	Copy  copyState

	// State an SMB client holds; REST honours it (smbstate).
	Opens         []smbstate.Open
	DeletePending bool

	// NFS are the NFS properties of a node of an NFS share, nil on an SMB
	// share (nfsprops.go).
	NFS *nfsProps

	// Links is the number of names of a file that has hard links
	// (nfs_hardlink.go): its state then lives in one link record keyed by
	// its id, and each name's record holds only the name. 0 for a file
	// whose own record holds its state, as every file has until its first
	// hard link.
	Links uint32
	// linkName marks a decoded name record of a file with hard links whose
	// state is still to be read from the link record (resolveLink).
	linkName bool
}

// smbProps are the SMB properties of a file or directory.
type smbProps struct {
	Attrs   attributes
	Created time.Time
	Written time.Time // last write
	Changed time.Time
	PermKey string
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
	e := record.NewEncoder(96 + len(n.Name))
	e.Byte(recordFormat)
	e.Field(ntagCore, func(e *record.Encoder) {
		kind := byte(kindFile)
		if n.Dir {
			kind = kindDir
		}
		e.Byte(kind)
		e.Str(n.Name)
		e.Uvarint(n.ID)
		e.Uvarint(n.ParentID)
		e.Uvarint(uint64(n.ETag))
		e.Uvarint(uint64(n.SMB.Attrs))
		e.Time(n.SMB.Created)
		e.Time(n.SMB.Written)
		e.Time(n.SMB.Changed)
		e.Str(n.SMB.PermKey)
		e.Varint(n.Size)
	})
	if !n.Props.Empty() {
		e.Field(ntagProps, n.Props.Encode)
	}
	if len(n.Metadata) > 0 {
		e.Field(ntagMetadata, n.Metadata.Encode)
	}
	if n.Lease.ID != "" {
		e.Field(ntagLease, func(e *record.Encoder) { leaserecord.Encode(e, n.Lease) })
	}
	if n.Copy.ID != "" {
		e.Field(ntagCopy, func(e *record.Encoder) {
			c := &n.Copy
			e.Str(c.ID)
			e.Str(c.Source)
			e.Str(c.Status)
			e.Str(c.Description)
			e.Varint(c.Copied)
			e.Varint(c.Total)
			e.Time(c.Completed)
		})
	}
	if len(n.Opens) > 0 || n.DeletePending {
		e.Field(ntagSMB, n.encodeSMB)
	}
	if n.opensHaveNodes() {
		e.Field(ntagOpenNode, func(e *record.Encoder) {
			for _, o := range n.Opens {
				e.Uvarint(o.Node)
			}
		})
	}
	if n.NFS != nil {
		e.Field(ntagNFS, n.NFS.encode)
		if n.NFS.LinkText != "" {
			e.Field(ntagSymlink, func(e *record.Encoder) { e.Str(n.NFS.LinkText) })
		}
	}
	if n.linkName {
		e.Field(ntagLinkName, func(*record.Encoder) {})
	}
	if n.Links > 0 {
		e.Field(ntagLinkCount, func(e *record.Encoder) { e.Uvarint(uint64(n.Links)) })
	}
	return e.Bytes()
}

func (n *node) encodeSMB(e *record.Encoder) {
	pending := byte(0)
	if n.DeletePending {
		pending = 1
	}
	e.Byte(pending)
	e.Uvarint(uint64(len(n.Opens)))
	for _, o := range n.Opens {
		e.Uvarint(o.HandleID)
		e.Uvarint(o.SessionID)
		e.Str(o.ClientIP)
		e.Str(o.ClientName)
		e.Time(o.OpenTime)
		e.Time(o.LastReconnectTime)
		e.Byte(byte(o.Access))
		e.Byte(byte(o.Share))
	}
}

func (n *node) decodeSMB(d *record.Decoder) {
	n.DeletePending = d.Byte() == 1
	count := d.Count()
	for i := 0; i < count && d.Err() == nil; i++ {
		n.Opens = append(n.Opens, smbstate.Open{HandleID: d.Uvarint(), SessionID: d.Uvarint(),
			ClientIP: d.Str(), ClientName: d.Str(), OpenTime: d.Time(), LastReconnectTime: d.Time(),
			Access: smbstate.Access(d.Byte()), Share: smbstate.ShareMode(d.Byte())})
	}
}

// opensHaveNodes reports whether any open is tied to a node (records
// written before nodes were recorded, and test opens, have none).
func (n *node) opensHaveNodes() bool {
	for _, o := range n.Opens {
		if o.Node != 0 {
			return true
		}
	}
	return false
}

// decodeOpenNodes reads the node of each open decoded from ntagSMB.
func (n *node) decodeOpenNodes(d *record.Decoder) {
	for i := range n.Opens {
		n.Opens[i].Node = d.Uvarint()
	}
}

// decodeNode decodes a stored node. The value belongs to the store, so
// everything kept is copied (strings by conversion, MD5 explicitly).
func decodeNode(v []byte) (*node, error) {
	if len(v) == 0 || v[0] != recordFormat {
		return nil, record.ErrMalformed
	}
	n := &node{}
	d := record.NewDecoder(v[1:])
	d.Fields(func(tag byte, p *record.Decoder) {
		switch tag {
		case ntagCore:
			n.Dir = p.Byte() == kindDir
			n.Name = p.Str()
			n.ID = p.Uvarint()
			n.ParentID = p.Uvarint()
			n.ETag = etag.Tick(p.Uvarint())
			n.SMB.Attrs = attributes(p.Uvarint())
			n.SMB.Created = p.Time()
			n.SMB.Written = p.Time()
			n.SMB.Changed = p.Time()
			n.SMB.PermKey = p.Str()
			n.Size = p.Varint()
		case ntagProps:
			n.Props = contentprops.Decode(p)
		case ntagMetadata:
			n.Metadata = metadata.Decode(p)
		case ntagLease:
			n.Lease = leaserecord.Decode(p)
		case ntagCopy:
			n.Copy = copyState{ID: p.Str(), Source: p.Str(), Status: p.Str(), Description: p.Str(),
				Copied: p.Varint(), Total: p.Varint(), Completed: p.Time()}
		case ntagSMB:
			n.decodeSMB(p)
		case ntagOpenNode:
			n.decodeOpenNodes(p)
		case ntagNFS:
			n.NFS = decodeNFS(p)
		case ntagSymlink:
			if n.NFS != nil {
				n.NFS.LinkText = p.Str()
			}
		case ntagLinkName:
			n.linkName = true
		case ntagLinkCount:
			n.Links = uint32(p.Uvarint())
		}
	})
	return n, d.Err()
}

// loadNode reads the entry at p, with the state of its file when that
// lives in a link record; found is false when there is none.
func loadNode(tx store.Tx, account, share, snap string, p filePath) (*node, bool, error) {
	v, err := tx.Get(nodeKeyOf(account, share, snap, p))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	n, err := decodeNode(v)
	if err == nil {
		err = resolveLink(tx, account, share, snap, n)
	}
	return n, err == nil, err
}

func saveNode(tx store.Tx, account, share, snap string, p filePath, n *node) error {
	return storeNode(tx, nodeKeyOf(account, share, snap, p), account, share, snap, n)
}
