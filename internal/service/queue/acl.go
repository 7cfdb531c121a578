package queue

import (
	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
)

// appendACL renders the Get Queue ACL body.
func appendACL(dst []byte, acl []accesspolicy.Identifier) []byte {
	x := xmlw.Over(dst, xmlw.Standard)
	_, _ = x.WriteString(xmlw.DeclLower)
	accesspolicy.Write(x, acl)
	return x.Bytes()
}
