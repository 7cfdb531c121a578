package auth

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"time"
)

// BlobSASValues is what a blob or container service SAS that Lazuli signs
// for a user (the web console's "Generate SAS") grants: a container
// (Blob empty, sr=c) or one blob (sr=b), the permissions, and the window.
type BlobSASValues struct {
	Version         string // sv: the service version the SAS is signed in
	Container, Blob string
	Permissions     string    // any order; signed in the service's order
	Start           time.Time // optional
	Expiry          time.Time
}

// blobPermissionOrder is the order "Create a service SAS" lists the blob
// and container permissions in, the order the SDKs sign them in.
const blobPermissionOrder = "racwdxyltfmeopi"

// sasTimeLayout is the ISO 8601 UTC form SAS times are signed in.
const sasTimeLayout = "2006-01-02T15:04:05Z"

// SignBlobSAS signs v with key as a service SAS of account over HTTPS or
// HTTP, with the string-to-sign this package verifies (Azure REST, "Create
// a service SAS"), and answers the query to append to the resource's URL.
func SignBlobSAS(account string, key []byte, v BlobSASValues) (url.Values, error) {
	perms, err := canonicalBlobPermissions(v.Permissions)
	if err != nil {
		return nil, err
	}
	if v.Expiry.IsZero() || v.Container == "" {
		return nil, errors.New("a SAS needs a container and an expiry")
	}
	s := &SAS{Version: v.Version, Resource: "c", Permissions: perms, Protocol: "https,http",
		expiry: v.Expiry.UTC().Format(sasTimeLayout)}
	if v.Blob != "" {
		s.Resource = "b"
	}
	if !v.Start.IsZero() {
		s.start = v.Start.UTC().Format(sasTimeLayout)
	}
	resource := canonicalName(Blob, s.Version, account, serviceScope{container: v.Container, object: v.Blob})
	q := url.Values{"sv": {s.Version}, "sr": {s.Resource}, "sp": {perms}, "se": {s.expiry}, "spr": {s.Protocol}}
	if s.start != "" {
		q.Set("st", s.start)
	}
	q.Set("sig", base64.StdEncoding.EncodeToString(sign(key, serviceSASStringToSign(Blob, s, resource, ""))))
	return q, nil
}

// canonicalBlobPermissions puts perms in the service's order, refusing a
// letter that is not a blob or container permission, or none at all.
func canonicalBlobPermissions(perms string) (string, error) {
	var b strings.Builder
	for _, p := range blobPermissionOrder {
		if strings.ContainsRune(perms, p) {
			b.WriteRune(p)
		}
	}
	for _, p := range perms {
		if !strings.ContainsRune(blobPermissionOrder, p) {
			return "", errors.New("a blob SAS permission is one of " + blobPermissionOrder + ", not " + string(p))
		}
	}
	if b.Len() == 0 {
		return "", errors.New("a SAS needs at least one permission")
	}
	return b.String(), nil
}
