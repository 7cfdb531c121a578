package console

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
)

// fileEntry is one listed file or directory.
type fileEntry struct {
	Name      string `json:"name"`
	Directory bool   `json:"directory"`
	Length    int64  `json:"length,omitempty"`
	ETag      string `json:"etag,omitempty"`
	Modified  string `json:"lastModified,omitempty"`
	// Lease is a file's lease state ("available", "leased", ...); Handles
	// the open handles on it (SMB opens).
	Lease   string `json:"lease,omitempty"`
	Handles int    `json:"handles"`
}

// handlesPage is a List Handles page.
type handlesPage struct {
	Handles    []struct{ Path string } `xml:"Entries>Handle"`
	NextMarker string                  `xml:"NextMarker"`
}

type filesPage struct {
	Entries struct {
		Items []entryXML `xml:",any"`
	} `xml:"Entries"`
	NextMarker string `xml:"NextMarker"`
}

// entryXML is a <File> or <Directory> element.
type entryXML struct {
	XMLName xml.Name
	Name    string `xml:"Name"`
	Props   struct {
		Length   int64  `xml:"Content-Length"`
		ETag     string `xml:"Etag"`
		Modified string `xml:"Last-Modified"`
	} `xml:"Properties"`
}

// files lists one page of a share directory through List Directories and
// Files, with the name prefix, marker and maxresults of listPage;
// nextMarker continues the listing.
func (c *Console) files(r *http.Request) (any, error) {
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	q := r.URL.Query()
	dir := strings.Trim(q.Get("path"), "/")
	p := "/" + q.Get("share")
	if dir != "" {
		p += "/" + dir
	}
	query := listPage(q, url.Values{"restype": {"directory"}, "comp": {"list"}, "include": {"Timestamps,ETag"}})
	rec, err := c.call(ctx, "file", q.Get("account"), http.MethodGet, p, query, nil)
	if err != nil {
		return nil, err
	}
	var page filesPage
	if err := xml.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		return nil, err
	}
	out := []fileEntry{}
	for _, e := range page.Entries.Items {
		out = append(out, fileEntry{Name: e.Name, Directory: e.XMLName.Local == "Directory", Length: e.Props.Length,
			ETag: e.Props.ETag, Modified: e.Props.Modified})
	}
	return map[string]any{"entries": out, "nextMarker": page.NextMarker}, c.fileStates(r, p, out)
}

// fileStates fills in each file's lease state (Get File Properties) and
// the number of handles open on it (List Handles of the directory).
func (c *Console) fileStates(r *http.Request, dir string, entries []fileEntry) error {
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	account := r.URL.Query().Get("account")
	open := map[string]int{}
	err := listXML(ctx, c, "file", account, dir, url.Values{"comp": {"listhandles"}}, func(page *handlesPage) string {
		for _, h := range page.Handles {
			open[h.Path[strings.LastIndexByte(h.Path, '/')+1:]]++
		}
		return page.NextMarker
	})
	if err != nil {
		return err
	}
	for i := range entries {
		e := &entries[i]
		e.Handles = open[e.Name]
		if e.Directory {
			continue
		}
		rec, err := c.call(ctx, "file", account, http.MethodHead, dir+"/"+e.Name, nil, nil)
		if err != nil {
			return err
		}
		e.Lease = rec.Header().Get("X-Ms-Lease-State")
	}
	return nil
}
