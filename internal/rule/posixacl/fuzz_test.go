package posixacl

import "testing"

// FuzzParse feeds one text to every reader of the package: none may
// panic, and what ParseACL and ParseRemoveList read must write back and
// read again the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"user::rwx,user:" + oid + ":r-x,group::r--,mask::rwx,other::---,default:user::rwx,default:other::---",
		"mask,default:user,default:group,user:" + oid + ",default:group:" + oid,
		"rwxr-x--T+", "1750", "asdf",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if acl, err := ParseACL(s); err == nil {
			again, err := ParseACL(acl.String())
			if err != nil || again.String() != acl.String() {
				t.Fatalf("%q: %q then %q, %v", s, acl, again, err)
			}
			for _, dir := range []bool{false, true} {
				if set, err := Set(acl, dir); err == nil {
					if _, err := Set(set, dir); err != nil {
						t.Fatalf("%q: Set's result %q is refused: %v", s, set, err)
					}
				}
			}
		}
		if keys, err := ParseRemoveList(s); err == nil {
			for _, k := range keys {
				if again, err := ParseRemoveList(k.String()); err != nil || again[0] != k {
					t.Fatalf("%q: key %v writes %q, reads %v, %v", s, k, k.String(), again, err)
				}
			}
		}
		if m, err := ParsePermissions(s); err == nil {
			for _, text := range []string{m.Octal(), m.Symbolic(false), m.Symbolic(true)} {
				if again, err := ParsePermissions(text); err != nil || again != m {
					t.Fatalf("%q: %o writes %q, reads %o, %v", s, m, text, again, err)
				}
			}
		}
	})
}
