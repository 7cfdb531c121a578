package file

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
)

// xmlWriter builds a response document: the shared writer, with the File
// service's declaration (followed by a line feed) and escaping.
type xmlWriter = xmlw.Writer

func newXML() *xmlWriter { return xmlw.New(xmlw.DeclLine, xmlw.Standard) }

// serviceEndpoint is the ServiceEndpoint attribute of listings: the URL of
// the account's file endpoint as the client addressed it.
func serviceEndpoint(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	info := request.Of(r)
	u := scheme + "://" + r.Host + "/"
	if info.PathStyle {
		u += info.Account + "/"
	}
	return u
}
