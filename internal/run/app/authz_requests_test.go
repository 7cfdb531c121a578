package app_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// request builds the request of row for caller c: its method, a path at
// its level, its restype and comp, and headers and query parameters that
// meet its conditions. Anonymous callers of Blob address the public
// container of their level.
func (m *matrix) request(t *testing.T, svc string, row route.Rule, c caller) *http.Request {
	t.Helper()
	path, q := m.path(svc, row, c)
	if row.Restype != "" {
		q.Set("restype", row.Restype)
	}
	if row.Comp != "" {
		q.Set("comp", row.Comp)
	}
	h := http.Header{}
	for _, cond := range row.When {
		switch {
		case cond.Absent:
		case cond.Query:
			q.Set(cond.Name, sampleQuery(cond.Name, cond.Value))
		default:
			h.Set(cond.Name, m.headerValue(svc, cond.Name, cond.Value))
		}
	}
	base := map[string]string{"blob": m.in.BlobURL, "queue": m.in.QueueURL, "table": m.in.TableURL, "file": m.in.FileURL}[svc]
	u, err := url.Parse(strings.TrimSuffix(base, "/") + path)
	if err != nil {
		t.Fatal(err)
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequest(row.Method, u.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	if row.Method == http.MethodPut || row.Method == http.MethodPost || row.Method == "MERGE" || row.Method == http.MethodPatch {
		req.Body, req.ContentLength = http.NoBody, 0
		req.Header.Set("Content-Length", "0")
	}
	return req
}

// path is the resource path of a row's level, with the query parameters
// that level needs.
func (m *matrix) path(svc string, row route.Rule, c caller) (string, url.Values) {
	q := url.Values{}
	level := int(row.Level)
	switch svc {
	case "blob":
		container := privateContainer
		if c.public != "" {
			container = publicContainers[c.public]
		}
		return []string{"/", "/" + container, "/" + container + "/" + blobName}[level], q
	case "queue":
		return []string{"/", "/" + queueName, "/" + queueName + "/messages",
			"/" + queueName + "/messages/00000000-0000-0000-0000-000000000000"}[level], q
	case "table":
		return []string{"/", "/Tables", "/Tables('" + tableName + "')", "/" + tableName, "/" + tableName + "()",
			"/" + tableName + "(PartitionKey='p',RowKey='r')", "/$batch"}[level], q
	}
	// File: service, share, file, directory.
	if level == 3 && row.AnyRestype {
		q.Set("restype", "directory")
	}
	return []string{"/", "/" + shareName, "/" + shareName + "/d/f", "/" + shareName + "/d"}[level], q
}

// headerValue is a plausible value of a header a row looks for.
func (m *matrix) headerValue(svc, name, value string) string {
	if value != "" {
		return value
	}
	switch strings.ToLower(name) {
	case "x-ms-copy-source":
		if svc == "file" {
			return m.in.FileURL + shareName + "/d/f"
		}
		return m.in.BlobURL + privateContainer + "/" + blobName
	case "x-ms-blob-type":
		return "BlockBlob"
	case "x-ms-blob-content-length":
		return "512"
	case "x-ms-sequence-number-action":
		return "max"
	case "if-match":
		return "*"
	}
	return "x"
}

func sampleQuery(name, value string) string {
	if value != "" {
		return value
	}
	if name == "versionid" {
		return "2024-01-01T00:00:00.0000000Z"
	}
	return "x"
}

// fixtures (re)creates, with the account key, what the matrix addresses;
// an earlier row may have deleted or leased it. Errors are ignored: the
// resource may already exist.
func (m *matrix) fixtures(t *testing.T, svc string) {
	t.Helper()
	type call struct {
		method, path, query string
		header              http.Header
		body                string
	}
	var calls []call
	now := m.in.Clock.Now().UTC()
	acl := `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>` + policyID +
		`</Id><AccessPolicy><Start>` + now.Add(-time.Hour).Format(time.RFC3339) + `</Start><Expiry>` +
		now.Add(time.Hour).Format(time.RFC3339) + `</Expiry><Permission>` + policyLetters[svc] +
		`</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`
	switch svc {
	case "blob":
		for _, c := range []struct{ name, public string }{{privateContainer, ""}, {publicContainers["blob"], "blob"}, {publicContainers["container"], "container"}} {
			calls = append(calls,
				call{"PUT", "/" + c.name, "restype=container&comp=lease", http.Header{"X-Ms-Lease-Action": {"break"}, "X-Ms-Lease-Break-Period": {"0"}}, ""},
				call{"PUT", "/" + c.name, "restype=container", nil, ""},
				call{"PUT", "/" + c.name + "/" + blobName, "comp=lease", http.Header{"X-Ms-Lease-Action": {"break"}, "X-Ms-Lease-Break-Period": {"0"}}, ""},
				call{"PUT", "/" + c.name + "/" + blobName, "", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}}, "content"})
			if c.public != "" {
				calls = append(calls, call{"PUT", "/" + c.name, "restype=container&comp=acl", http.Header{"X-Ms-Blob-Public-Access": {c.public}}, ""})
			} else {
				calls = append(calls, call{"PUT", "/" + c.name, "restype=container&comp=acl", nil, acl})
			}
		}
	case "queue":
		calls = append(calls, call{"PUT", "/" + queueName, "", nil, ""}, call{"PUT", "/" + queueName, "comp=acl", nil, acl})
	case "table":
		calls = append(calls, call{"POST", "/Tables", "", http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json;odata=nometadata"}},
			`{"TableName":"` + tableName + `"}`}, call{"PUT", "/" + tableName, "comp=acl", nil, acl})
	case "file":
		calls = append(calls,
			call{"PUT", "/" + shareName, "restype=share&comp=lease", http.Header{"X-Ms-Lease-Action": {"break"}, "X-Ms-Lease-Break-Period": {"0"}}, ""},
			call{"PUT", "/" + shareName, "restype=share", nil, ""},
			call{"PUT", "/" + shareName, "restype=share&comp=acl", nil, acl},
			call{"PUT", "/" + shareName + "/d", "restype=directory", http.Header{"X-Ms-File-Attributes": {"None"}, "X-Ms-File-Creation-Time": {"now"},
				"X-Ms-File-Last-Write-Time": {"now"}, "X-Ms-File-Permission": {"inherit"}}, ""},
			call{"PUT", "/" + shareName + "/d/f", "comp=lease", http.Header{"X-Ms-Lease-Action": {"break"}}, ""},
			call{"PUT", "/" + shareName + "/d/f", "", http.Header{"X-Ms-Type": {"file"}, "X-Ms-Content-Length": {"16"}, "X-Ms-File-Attributes": {"None"},
				"X-Ms-File-Creation-Time": {"now"}, "X-Ms-File-Last-Write-Time": {"now"}, "X-Ms-File-Permission": {"inherit"}}, ""})
	}
	base := map[string]string{"blob": m.in.BlobURL, "queue": m.in.QueueURL, "table": m.in.TableURL, "file": m.in.FileURL}[svc]
	for _, c := range calls {
		req, err := http.NewRequest(c.method, strings.TrimSuffix(base, "/")+c.path+"?"+c.query, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.header {
			req.Header[k] = v
		}
		req.Header.Set("X-Ms-Date", m.in.Clock.Now().UTC().Format(http.TimeFormat))
		req.Header.Set("X-Ms-Version", requestVersion)
		auth.SignSharedKey(req, auth.Service(svc), lazulitest.Account, lazulitest.KeyBytes())
		resp, err := m.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
