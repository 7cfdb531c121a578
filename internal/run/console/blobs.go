package console

import (
	"encoding/xml"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
)

// blobView is one listed blob, snapshot or version.
type blobView struct {
	Name             string           `xml:"Name" json:"name"`
	Snapshot         string           `xml:"Snapshot" json:"snapshot,omitempty"`
	VersionID        string           `xml:"VersionId" json:"versionId,omitempty"`
	IsCurrentVersion bool             `xml:"IsCurrentVersion" json:"isCurrentVersion,omitempty"`
	Deleted          bool             `xml:"Deleted" json:"deleted,omitempty"`
	Props            blobProps        `xml:"Properties" json:"properties"`
	Tags             []tag            `xml:"Tags>TagSet>Tag" json:"tags"`
	Metadata         metadataElements `xml:"Metadata" json:"metadata"`
}

type blobProps struct {
	LastModified  string `xml:"Last-Modified" json:"lastModified"`
	ETag          string `xml:"Etag" json:"etag"`
	Length        int64  `xml:"Content-Length" json:"length"`
	ContentType   string `xml:"Content-Type" json:"contentType"`
	BlobType      string `xml:"BlobType" json:"blobType"`
	AccessTier    string `xml:"AccessTier" json:"accessTier,omitempty"`
	LeaseStatus   string `xml:"LeaseStatus" json:"leaseStatus"`
	LeaseState    string `xml:"LeaseState" json:"leaseState"`
	LeaseDuration string `xml:"LeaseDuration" json:"leaseDuration,omitempty"`
	ExpiryTime    string `xml:"Expiry-Time" json:"expiryTime,omitempty"`
	DeletedTime   string `xml:"DeletedTime" json:"deletedTime,omitempty"`
}

type tag struct {
	Key   string `xml:"Key" json:"key"`
	Value string `xml:"Value" json:"value"`
}

// metadataElements decodes <Metadata><name>value</name>...</Metadata>.
type metadataElements map[string]string

// UnmarshalXML reads each child element as one metadata pair.
func (m *metadataElements) UnmarshalXML(d *xml.Decoder, _ xml.StartElement) error {
	*m = metadataElements{}
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			var v string
			if err := d.DecodeElement(&v, &t); err != nil {
				return err
			}
			(*m)[t.Name.Local] = v
		case xml.EndElement:
			return nil
		}
	}
}

type blobsPage struct {
	Blobs      []blobView `xml:"Blobs>Blob"`
	Prefixes   []string   `xml:"Blobs>BlobPrefix>Name"`
	NextMarker string     `xml:"NextMarker"`
}

// listPage reads the paging parameters a listing view passes on to the
// service: prefix, marker and maxresults (pageSize when not given); the
// service checks them and answers a bad one with its own 400.
func listPage(q url.Values, query url.Values) url.Values {
	query.Set("maxresults", strconv.Itoa(pageSize))
	for _, name := range []string{"prefix", "marker", "maxresults"} {
		if v := q.Get(name); v != "" {
			query.Set(name, v)
		}
	}
	return query
}

// pageSize is how many entries a listing view shows at once, so that a
// container of 100,000 blobs is read a page at a time.
const pageSize = 100

// blobs lists one page of a container's blobs as folders: the blobs
// directly under prefix, with their snapshots, versions, deleted blobs,
// tags and metadata, and the virtual directories under it (delimiter '/'),
// through List Blobs; nextMarker continues the listing.
func (c *Console) blobs(r *http.Request) (any, error) {
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	q := r.URL.Query()
	query := listPage(q, url.Values{"restype": {"container"}, "comp": {"list"}, "delimiter": {"/"},
		"include": {"snapshots,versions,tags,metadata,deleted"}})
	rec, err := c.call(ctx, "blob", q.Get("account"), http.MethodGet, "/"+q.Get("container"), query, nil)
	if err != nil {
		return nil, err
	}
	page := blobsPage{Blobs: []blobView{}, Prefixes: []string{}}
	if err := xml.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		return nil, err
	}
	for i := range page.Blobs {
		if page.Blobs[i].Tags == nil {
			page.Blobs[i].Tags = []tag{}
		}
	}
	return map[string]any{"blobs": page.Blobs, "prefixes": page.Prefixes, "nextMarker": page.NextMarker}, nil
}

// blobPath is the escaped path of a blob within its account.
func blobPath(container, blob string) string {
	return "/" + container + "/" + blob
}

// blobQuery selects a snapshot or version.
func blobQuery(q url.Values) url.Values {
	out := url.Values{}
	if s := q.Get("snapshot"); s != "" {
		out.Set("snapshot", s)
	}
	if v := q.Get("versionid"); v != "" {
		out.Set("versionid", v)
	}
	return out
}

// download streams a blob (or one of its snapshots or versions) to the
// browser as an attachment, through Get Blob. The blob's own Content-Type
// and Content-Disposition are not passed on: a blob stored as text/html
// and inline by anyone holding a write SAS would otherwise run its script
// in the console's origin, with the console's reach into every account.
func (c *Console) download(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req, err := c.request(r.Context(), "blob", q.Get("account"), http.MethodGet, blobPath(q.Get("container"), q.Get("blob")), blobQuery(q), nil, nil, 0)
	h, ok := c.opts.Services["blob"]
	if err != nil || !ok {
		http.Error(w, "no such account or blob service", http.StatusNotFound)
		return
	}
	h.ServeHTTP(&attachment{ResponseWriter: w, name: path.Base(q.Get("blob"))}, req)
}

// attachment makes whatever the blob service answers a download that no
// browser renders: the headers are set as the answer starts, over the
// service's own.
type attachment struct {
	http.ResponseWriter
	name    string
	started bool
}

func (a *attachment) WriteHeader(status int) {
	if !a.started {
		a.started = true
		h := a.Header()
		disposition := mime.FormatMediaType("attachment", map[string]string{"filename": a.name})
		if disposition == "" {
			disposition = "attachment"
		}
		h.Set("Content-Disposition", disposition)
		h.Set("Content-Type", "application/octet-stream")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	}
	a.ResponseWriter.WriteHeader(status)
}

func (a *attachment) Write(b []byte) (int, error) {
	if !a.started {
		a.WriteHeader(http.StatusOK)
	}
	return a.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (a *attachment) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// breakLease breaks a blob's lease at once.
func (c *Console) breakLease(r *http.Request) (any, error) {
	q := r.URL.Query()
	_, err := c.call(r.Context(), "blob", q.Get("account"), http.MethodPut, blobPath(q.Get("container"), q.Get("blob")),
		url.Values{"comp": {"lease"}}, http.Header{"X-Ms-Lease-Action": {"break"}, "X-Ms-Lease-Break-Period": {"0"}})
	return map[string]bool{"ok": err == nil}, err
}

// deleteBlob deletes a blob with its snapshots, or one snapshot or version.
func (c *Console) deleteBlob(r *http.Request) (any, error) {
	q := r.URL.Query()
	query := blobQuery(q)
	header := http.Header{}
	if len(query) == 0 {
		header.Set("X-Ms-Delete-Snapshots", "include")
	}
	_, err := c.call(r.Context(), "blob", q.Get("account"), http.MethodDelete, blobPath(q.Get("container"), q.Get("blob")), query, header)
	return map[string]bool{"ok": err == nil}, err
}
