// Package posixacl is the access control of Azure Data Lake Storage Gen2
// (the dfs endpoint on hierarchical-namespace accounts): POSIX-like ACLs
// and permission bits, as "Access control lists (ACLs) in Azure Data Lake
// Storage" (learn.microsoft.com, data-lake-storage-access-control) and the
// DataLakeStorage REST specification (Path - Create, Path - Update
// setAccessControl and setAccessControlRecursive) describe them.
//
// It reads and writes x-ms-acl, x-ms-permissions and x-ms-umask; sets,
// modifies and removes ACL entries with the mask kept as POSIX.1e and HDFS
// keep it (the model the document derives from); gives a new file or
// directory its ACLs from its parent's default ACL or the umask; and
// decides, for a principal, whether an operation's checks on each path
// component pass. It is pure: no store, no I/O, no HTTP. Bad input is an
// *azerr.Error with the code the service answers.
package posixacl

import (
	"slices"
	"strings"
)

// Tag is an ACL entry's type: "user" grants rights to the owner or a named
// user, "group" to the owning group or a named group, "mask" restricts the
// rights of named users and of groups, "other" grants rights to everyone
// else (Path - Update, x-ms-acl).
type Tag uint8

// The four entry types, in the order an ACL lists them.
const (
	TagUser Tag = iota
	TagGroup
	TagMask
	TagOther
)

var tagNames = [...]string{TagUser: "user", TagGroup: "group", TagMask: "mask", TagOther: "other"}

// String is the type's name in x-ms-acl.
func (t Tag) String() string { return tagNames[t] }

// defaultScope prefixes an entry of a directory's default ACL.
const defaultScope = "default"

// MaxEntries is how many entries each of a path's access and default ACLs
// holds at most: "32 ACL entries ... per file, 32 ACL entries ... per
// directory, default and access ACL entries each" (Azure Data Lake Storage
// limits on Azure role assignments and ACL entries).
const MaxEntries = 32

// Entry is one access control entry, "[scope:][type]:[id]:[permissions]".
// ID is empty for the owner ("user::"), the owning group ("group::"), the
// mask and other; a named entry carries an object ID (or a user principal
// name).
type Entry struct {
	Default bool
	Tag     Tag
	ID      string
	Perm    Perm
}

// Key identifies an entry without its rights: the form Remove takes.
type Key struct {
	Default bool
	Tag     Tag
	ID      string
}

// Key is e's identity.
func (e Entry) Key() Key { return Key{e.Default, e.Tag, e.ID} }

// String is the entry in x-ms-acl form: "user::rwx", "default:group:ID:r-x".
func (e Entry) String() string {
	return e.Key().scopePrefix() + e.Tag.String() + ":" + e.ID + ":" + e.Perm.String()
}

// String is the key as a remove list writes it: "[default:]type[:id]",
// "mask", "default:user", "user:ID".
func (k Key) String() string {
	s := k.scopePrefix() + k.Tag.String()
	if k.ID != "" {
		s += ":" + k.ID
	}
	return s
}

func (k Key) scopePrefix() string {
	if k.Default {
		return defaultScope + ":"
	}
	return ""
}

// rank orders entries within a scope as getfacl and the service list
// them: owner, named users, owning group, named groups, mask, other (the
// service answers a set "user::rwx,group::r--,other::---,mask::rwx" as
// "user::rwx,group::r--,mask::rwx,other::---", Azure CLI's recorded
// storage fs access test).
func (k Key) rank() int {
	r := int(k.Tag) * 2
	if k.ID != "" {
		r++
	}
	if k.Default {
		r += 10
	}
	return r
}

// ACL is a path's access entries followed by its default entries, in the
// order of rank.
type ACL []Entry

// String is the ACL as x-ms-acl carries it.
func (a ACL) String() string {
	parts := make([]string, len(a))
	for i, e := range a {
		parts[i] = e.String()
	}
	return strings.Join(parts, ",")
}

// Access is a's access entries; Default its default entries.
func (a ACL) Access() ACL { return a.scope(false) }

// Default is the directory's default ACL, the template of its new
// children's ACLs.
func (a ACL) Default() ACL { return a.scope(true) }

func (a ACL) scope(def bool) ACL {
	var out ACL
	for _, e := range a {
		if e.Default == def {
			out = append(out, e)
		}
	}
	return out
}

// find returns the entry with key k.
func (a ACL) find(k Key) (Entry, bool) {
	i := slices.IndexFunc(a, func(e Entry) bool { return e.Key() == k })
	if i < 0 {
		return Entry{}, false
	}
	return a[i], true
}

// sorted returns a copy of a in rank order, named entries keeping their
// order among themselves.
func (a ACL) sorted() ACL {
	out := slices.Clone(a)
	slices.SortStableFunc(out, func(x, y Entry) int { return x.Key().rank() - y.Key().rank() })
	return out
}

// ParseACL reads x-ms-acl as setAccessControl and the set and modify
// modes of setAccessControlRecursive take it: comma-separated entries
// "[scope:][type]:[id]:[permissions]", scope "default" or none, type user,
// group, mask or other, no id for mask and other, permissions a
// three-character short form. Malformed text, or one entry given twice,
// is 400 InvaldAccessControlList. Whether the entries make a whole ACL is
// for Set and Modify to judge.
func ParseACL(s string) (ACL, error) {
	return parseList(s, func(fields []string) (Entry, bool) {
		if len(fields) < 3 {
			return Entry{}, false
		}
		perm, ok := parsePerm(fields[len(fields)-1])
		if !ok {
			return Entry{}, false
		}
		k, ok := parseKey(fields[:len(fields)-1], true)
		return Entry{k.Default, k.Tag, k.ID, perm}, ok
	})
}

// ParseRemoveList reads x-ms-acl of setAccessControlRecursive's remove
// mode: the entries to remove without permissions, "[scope:][type]:[id]"
// ("mask,default:user,default:group,user:ID,default:group:ID" in the
// SDKs' recorded remove tests), the id place optional. Malformed text is
// 400 InvaldAccessControlList.
func ParseRemoveList(s string) ([]Key, error) {
	acl, err := parseList(s, func(fields []string) (Entry, bool) {
		k, ok := parseKey(fields, false)
		return Entry{Default: k.Default, Tag: k.Tag, ID: k.ID}, ok
	})
	keys := make([]Key, len(acl))
	for i, e := range acl {
		keys[i] = e.Key()
	}
	return keys, err
}

// parseList splits s into entries, reads each with entry and refuses
// duplicates.
func parseList(s string, entry func(fields []string) (Entry, bool)) (ACL, error) {
	if s == "" {
		return nil, invalidACL()
	}
	var acl ACL
	for part := range strings.SplitSeq(s, ",") {
		e, ok := entry(strings.Split(part, ":"))
		if !ok {
			return nil, invalidACL()
		}
		if _, dup := acl.find(e.Key()); dup {
			return nil, invalidACL()
		}
		acl = append(acl, e)
	}
	return acl, nil
}

// parseKey reads "[default:]type[:id]" from fields. With idPlace the id
// place must be there ("user::rwx" has it empty); without, a remove list
// may leave it out ("mask", "default:user").
func parseKey(fields []string, idPlace bool) (Key, bool) {
	var k Key
	if len(fields) > 0 && fields[0] == defaultScope {
		k.Default, fields = true, fields[1:]
	}
	if len(fields) == 0 || len(fields) > 2 || idPlace && len(fields) != 2 {
		return Key{}, false
	}
	tag := slices.Index(tagNames[:], fields[0])
	if tag < 0 {
		return Key{}, false
	}
	k.Tag = Tag(tag)
	if len(fields) == 2 {
		k.ID = fields[1]
	}
	if k.ID != "" && (k.Tag == TagMask || k.Tag == TagOther) {
		return Key{}, false
	}
	return k, true
}

// FromMode is the minimal ACL of permission bits: the owner, owning group
// and other entries.
func FromMode(m Mode) ACL {
	return ACL{
		{Tag: TagUser, Perm: m.Owner()},
		{Tag: TagGroup, Perm: m.Group()},
		{Tag: TagOther, Perm: m.Other()},
	}
}

// Mode is the permission bits an ACL shows (without the sticky bit, which
// is the path's and not its ACL's): the owner's entry, the group class
// (the mask when the access ACL has one, else the owning group's entry),
// and other's entry, as POSIX.1e and HDFS show an ACL in the mode bits.
func (a ACL) Mode() Mode {
	owner, _ := a.find(Key{Tag: TagUser})
	other, _ := a.find(Key{Tag: TagOther})
	return NewMode(owner.Perm, a.groupClass().Perm, other.Perm, false)
}

// groupClass is the access entry the mode's group bits stand for.
func (a ACL) groupClass() Entry {
	if mask, ok := a.find(Key{Tag: TagMask}); ok {
		return mask
	}
	e, _ := a.find(Key{Tag: TagGroup})
	return e
}

// Extended reports whether a holds more than the three base access
// entries, which Get Properties shows as a '+' after x-ms-permissions.
func (a ACL) Extended() bool { return len(a) > 3 }
