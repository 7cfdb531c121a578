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

// files lists a share directory through List Directories and Files.
func (c *Console) files(r *http.Request) (any, error) {
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	q := r.URL.Query()
	dir := strings.Trim(q.Get("path"), "/")
	p := "/" + q.Get("share")
	if dir != "" {
		p += "/" + dir
	}
	query := url.Values{"restype": {"directory"}, "comp": {"list"}, "include": {"Timestamps,ETag"}}
	out := []fileEntry{}
	err := listXML(ctx, c, "file", q.Get("account"), p, query, func(page *filesPage) string {
		for _, e := range page.Entries.Items {
			out = append(out, fileEntry{Name: e.Name, Directory: e.XMLName.Local == "Directory", Length: e.Props.Length,
				ETag: e.Props.ETag, Modified: e.Props.Modified})
		}
		return page.NextMarker
	})
	return map[string]any{"entries": out}, err
}
