package cond

import (
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// FuzzParse feeds arbitrary header values to Parse and ParseSource and
// evaluates whatever parses: nothing may panic, and every failure must be
// an Azure error with a 3xx or 4xx status.
func FuzzParse(f *testing.F) {
	f.Add(currentETag, "*", sameSec, before, `"a" = 'b'`)
	f.Add(`"a,b", c`, `W/"x", "y"`, "Monday, 18-May-20 05:51:26 GMT", "", "")
	f.Add(`"`, `,,,`, "not a date", "Mon Jan  2 15:04:05 2006", "\x00")
	f.Add("", "", "", "", "")
	f.Fuzz(func(t *testing.T, ifMatch, ifNoneMatch, ims, ius, tags string) {
		for _, source := range []bool{false, true} {
			prefix, parse := "", Parse
			if source {
				prefix, parse = "x-ms-source-", ParseSource
			}
			h := http.Header{}
			h.Add(prefix+"if-match", ifMatch)
			h.Add(prefix+"if-none-match", ifNoneMatch)
			h.Add(prefix+"if-modified-since", ims)
			h.Add(prefix+"if-unmodified-since", ius)
			h.Add(prefix+"if-tags", tags)
			c, err := parse(h)
			if err != nil {
				requireClientError(t, err)
				continue
			}
			for _, res := range []Resource{existing, missing} {
				for _, check := range []error{
					c.CheckRead(res, "2021-10-04"),
					c.CheckRead(res, "2012-02-12"),
					c.CheckWrite(res),
					c.CheckSource(res),
					c.Restrict(IfModifiedSince),
				} {
					if check != nil {
						requireClientError(t, check)
					}
				}
			}
		}
	})
}

func requireClientError(t *testing.T, err error) {
	t.Helper()
	e, ok := azerr.As(err)
	if !ok || e.Status < 300 || e.Status >= 500 {
		t.Fatalf("want an Azure 3xx/4xx error, got %v", err)
	}
}
