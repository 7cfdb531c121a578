package posixacl

// The three ways Path - Update changes an ACL: setAccessControl's x-ms-acl
// and setAccessControlRecursive's mode "set" replace it, mode "modify"
// merges entries into it, mode "remove" takes entries out. Each result is
// completed and checked the same way (complete): a default ACL gets the
// base entries it lacks from the access ACL, the mask is recalculated
// where the change did not name one, and the ACL must hold the owner,
// owning group and other entries, at most MaxEntries in each scope.
//
// A file has no default ACL ("Files do not have default ACLs"): changes
// to a file drop default entries, as a recursive change that reaches
// files must, and as the service takes remove("default:user,...") on a
// file (the SDKs' recorded TestFileRemoveAccessControl).

// Set is the ACL x-ms-acl gives a path: the entries "fully replace the
// existing access control list" (Path - Update, x-ms-acl). dir tells a
// directory from a file.
func Set(spec ACL, dir bool) (ACL, error) {
	c := keep(nil, nil)
	for _, e := range spec {
		c.put(e)
	}
	return c.complete(dir)
}

// Modify merges spec into existing: an entry of the same scope, type and
// id takes the new rights, others are added (setAccessControlRecursive,
// mode "modify").
func Modify(existing, spec ACL, dir bool) (ACL, error) {
	c := keep(existing, func(Entry) bool { return true })
	for _, e := range spec {
		c.put(e)
	}
	return c.complete(dir)
}

// Remove takes the entries named by keys out of existing; a key no entry
// has is no error (setAccessControlRecursive, mode "remove"). Removing
// the owner, owning group or other access entry leaves an ACL without a
// required entry and is 400 InvaldAccessControlList.
func Remove(existing ACL, keys []Key, dir bool) (ACL, error) {
	removed := map[Key]bool{}
	for _, k := range keys {
		removed[k] = true
	}
	c := keep(existing, func(e Entry) bool { return !removed[e.Key()] })
	for _, k := range keys {
		if _, ok := existing.find(k); ok {
			c.touched[k.Default] = true
			if k.Tag == TagMask {
				c.maskNamed[k.Default] = true
			}
		}
	}
	return c.complete(dir)
}

// WithMode is existing after x-ms-permissions sets a path's bits: the
// owner and other entries take the owner and other bits, and the group
// bits go to the mask when the ACL has one and to the owning group's
// entry otherwise (POSIX.1e; HDFS's chmod of a path with an ACL).
func WithMode(existing ACL, m Mode) ACL {
	out := existing.sorted()
	class := Key{Tag: TagGroup}
	if _, ok := out.find(Key{Tag: TagMask}); ok {
		class = Key{Tag: TagMask}
	}
	bits := map[Key]Perm{{Tag: TagUser}: m.Owner(), class: m.Group(), {Tag: TagOther}: m.Other()}
	for i, e := range out {
		if p, ok := bits[e.Key()]; ok {
			out[i].Perm = p
		}
	}
	return out
}

// change is an ACL being rebuilt. Masks are held apart, by scope (true
// for default), until complete decides them: provided is the mask the
// change or the existing ACL gives, maskNamed the scopes whose mask the
// change names (set, modified or removed), touched the scopes it changes.
type change struct {
	entries   ACL
	provided  map[bool]Entry
	maskNamed map[bool]bool
	touched   map[bool]bool
}

// keep starts a change from the entries of existing that stay (Set starts
// from none).
func keep(existing ACL, stays func(Entry) bool) *change {
	c := &change{provided: map[bool]Entry{}, maskNamed: map[bool]bool{}, touched: map[bool]bool{}}
	for _, e := range existing {
		switch {
		case !stays(e):
		case e.Tag == TagMask:
			c.provided[e.Default] = e
		default:
			c.entries = append(c.entries, e)
		}
	}
	return c
}

// put sets one entry of the change, replacing one of the same key.
func (c *change) put(e Entry) {
	c.touched[e.Default] = true
	if e.Tag == TagMask {
		c.provided[e.Default] = e
		c.maskNamed[e.Default] = true
		return
	}
	if i := indexOf(c.entries, e.Key()); i >= 0 {
		c.entries[i] = e
		return
	}
	c.entries = append(c.entries, e)
}

func indexOf(a ACL, k Key) int {
	for i, e := range a {
		if e.Key() == k {
			return i
		}
	}
	return -1
}

// complete finishes the change: drops a file's default entries, fills a
// default ACL's missing base entries from the access ACL, decides each
// scope's mask and checks the result.
func (c *change) complete(dir bool) (ACL, error) {
	if !dir {
		c.entries = c.entries.Access()
		delete(c.provided, true)
	}
	c.copyDefaultBase()
	if err := c.addMasks(); err != nil {
		return nil, err
	}
	acl := c.entries.sorted()
	if err := validate(acl); err != nil {
		return nil, err
	}
	return acl, nil
}

// copyDefaultBase gives a default ACL that has any entry the owner, owning
// group and other entries it lacks, from the access ACL (HDFS's rule for a
// default ACL given in part).
func (c *change) copyDefaultBase() {
	if len(c.entries.Default()) == 0 && !c.hasDefaultMask() {
		return
	}
	for _, tag := range []Tag{TagUser, TagGroup, TagOther} {
		if _, ok := c.entries.find(Key{Default: true, Tag: tag}); ok {
			continue
		}
		if e, ok := c.entries.find(Key{Tag: tag}); ok {
			e.Default = true
			c.entries = append(c.entries, e)
		}
	}
}

func (c *change) hasDefaultMask() bool { _, ok := c.provided[true]; return ok }

// addMasks decides each scope's mask, the rule HDFS follows: a mask the
// change names is kept; a scope the change does not touch keeps its mask;
// otherwise a scope with named entries, or one that had a mask, gets the
// union of its group class (owning group, named users and named groups).
// Removing the mask of a scope that keeps named entries is invalid.
func (c *change) addMasks() error {
	for _, def := range []bool{false, true} {
		scope := c.entries.scope(def)
		named, union := false, Perm(0)
		for _, e := range scope {
			if e.ID != "" {
				named = true
			}
			if e.Tag == TagGroup || e.ID != "" {
				union |= e.Perm
			}
		}
		mask, provided := c.provided[def]
		switch {
		case len(scope) == 0:
		case named && !provided && c.maskNamed[def]:
			return invalidACL()
		case provided && (c.maskNamed[def] || !c.touched[def]):
			c.entries = append(c.entries, mask)
		case named || provided:
			c.entries = append(c.entries, Entry{Default: def, Tag: TagMask, Perm: union})
		}
	}
	return nil
}

// validate checks a completed ACL: the owner, owning group and other
// entries in the access ACL and, when there is one, in the default ACL,
// and at most MaxEntries in each (Path - Update, x-ms-acl; Azure's ACL
// entry limits).
func validate(acl ACL) error {
	for _, def := range []bool{false, true} {
		scope := acl.scope(def)
		if def && len(scope) == 0 {
			continue
		}
		if len(scope) > MaxEntries {
			return invalidACL()
		}
		for _, tag := range []Tag{TagUser, TagGroup, TagOther} {
			if _, ok := scope.find(Key{Default: def, Tag: tag}); !ok {
				return invalidACL()
			}
		}
	}
	return nil
}
