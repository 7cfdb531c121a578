package console

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// treePages bounds the List Blobs pages read for one directory of the
// tree, so that a directory of a million files costs a refresh a few
// pages; a directory whose listing goes on further is marked truncated.
const treePages = 4

// tree answers whether the account has a hierarchical namespace (Get
// Account Information's x-ms-is-hns-enabled) and, if it has, the
// directories directly under each prefix asked ("" for the container's
// root, "raw/" below it). A directory is a virtual one, a name prefix
// List Blobs with delimiter '/' answers, or an empty one: a blob whose
// metadata has hdi_isfolder=true, as the Data Lake API marks the
// directories it creates (Azure REST, Data Lake Storage "Path - Create",
// resource=directory). Only Blob API calls are made, so the tree shows
// what any Blob client would.
func (c *Console) tree(r *http.Request) (any, error) {
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	q := r.URL.Query()
	account, container := q.Get("account"), q.Get("container")
	hns, err := c.isHNS(ctx, account)
	if err != nil || !hns {
		return map[string]any{"hns": false}, err
	}
	dirs, truncated := map[string][]string{}, []string{}
	for _, prefix := range q["prefix"] {
		if prefix != "" && !strings.HasSuffix(prefix, "/") {
			return nil, badRequest("prefix " + strconv.Quote(prefix) + " is not a directory: it must end in /")
		}
		found, more, err := c.dirsUnder(ctx, account, container, prefix)
		if err != nil {
			return nil, err
		}
		dirs[prefix] = found
		if more {
			truncated = append(truncated, prefix)
		}
	}
	return map[string]any{"hns": true, "dirs": dirs, "truncated": truncated}, nil
}

// isHNS reports whether account has a hierarchical namespace.
func (c *Console) isHNS(ctx context.Context, account string) (bool, error) {
	rec, err := c.call(ctx, "blob", account, http.MethodGet, "/", url.Values{"restype": {"account"}, "comp": {"properties"}}, nil)
	if err != nil {
		return false, err
	}
	return rec.Header().Get("X-Ms-Is-Hns-Enabled") == "true", nil
}

// dirsUnder lists the directories directly under prefix, each as its
// path without a trailing slash ("raw/2026"), sorted, and whether the listing was cut at treePages pages.
func (c *Console) dirsUnder(ctx context.Context, account, container, prefix string) (dirs []string, more bool, err error) {
	query := url.Values{"restype": {"container"}, "comp": {"list"}, "delimiter": {"/"}, "include": {"metadata"},
		"maxresults": {"5000"}}
	if prefix != "" {
		query.Set("prefix", prefix)
	}
	dirs, pages := []string{}, 0 // [], not null, for a directory without any
	err = listXML(ctx, c, "blob", account, "/"+container, query, func(p *blobsPage) string {
		for _, d := range p.Prefixes {
			dirs = append(dirs, strings.TrimSuffix(d, "/"))
		}
		for _, b := range p.Blobs {
			if isFolderBlob(b) {
				dirs = append(dirs, b.Name)
			}
		}
		if pages++; pages == treePages && p.NextMarker != "" {
			more = true
			return ""
		}
		return p.NextMarker
	})
	slices.Sort(dirs)
	return slices.Compact(dirs), more, err
}

// isFolderBlob reports whether a listed blob marks a directory: its
// metadata hdi_isfolder is true (names compared without case, as
// metadata names are).
func isFolderBlob(b blobView) bool {
	for k, v := range b.Metadata {
		if strings.EqualFold(k, "hdi_isfolder") && strings.EqualFold(v, "true") {
			return true
		}
	}
	return false
}
