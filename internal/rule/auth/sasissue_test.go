package auth

import (
	"encoding/base64"
	"net/url"
	"testing"
	"time"

	blobsas "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// TestSignBlobSASAsTheSDKSigns: the SAS Lazuli signs for a container and
// for a blob is, field for field, the one the Azure SDK for Go signs from
// the same values, whatever order the permissions are given in.
func TestSignBlobSASAsTheSDKSigns(t *testing.T) {
	start, expiry := sasNow.Add(-time.Hour), sasNow.Add(time.Hour)
	for _, c := range []struct{ blob, given, sdkPerms string }{
		{"", "lwr", "rwl"},
		{"dir/b.txt", "dr", "rd"},
	} {
		got, err := SignBlobSAS(DevAccountName, mustDevKey(t), BlobSASValues{Version: "2025-11-05", Container: "photos", Blob: c.blob,
			Permissions: c.given, Start: start, Expiry: expiry})
		if err != nil {
			t.Fatal(err)
		}
		want, err := url.ParseQuery(blobSAS(t, blobsas.BlobSignatureValues{Version: "2025-11-05", Protocol: blobsas.ProtocolHTTPSandHTTP,
			StartTime: start, ExpiryTime: expiry, Permissions: c.sdkPerms, ContainerName: "photos", BlobName: c.blob}))
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{"sv", "sr", "sp", "st", "se", "spr", "sig"} {
			if got.Get(field) != want.Get(field) {
				t.Errorf("blob %q: %s = %q, the SDK signs %q", c.blob, field, got.Get(field), want.Get(field))
			}
		}
	}
}

func TestSignBlobSASRefuses(t *testing.T) {
	expiry := sasNow.Add(time.Hour)
	for _, v := range []BlobSASValues{
		{Version: "2025-11-05", Container: "c1", Permissions: "rz", Expiry: expiry},
		{Version: "2025-11-05", Container: "c1", Permissions: "", Expiry: expiry},
		{Version: "2025-11-05", Container: "c1", Permissions: "r"},
		{Version: "2025-11-05", Permissions: "r", Expiry: expiry},
	} {
		if _, err := SignBlobSAS(DevAccountName, mustDevKey(t), v); err == nil {
			t.Errorf("%+v signed", v)
		}
	}
}

func mustDevKey(t *testing.T) []byte {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(DevAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	return key
}
