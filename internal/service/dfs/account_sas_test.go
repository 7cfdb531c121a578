package dfs_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/sas"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// accountNeed is what an account SAS of the blob service must carry for
// a dfs operation: one of the letters of each string, of "Create an
// account SAS" (r w d x y l a c u p t f i, where p is Process), and where
// the letters come from.
type accountNeed struct {
	letters []string
	source  string
}

// accountLetters are the permission letters of an account SAS.
const accountLetters = "rwdxylacuptfi"

// accountNeeds are the dfs operations an account SAS may call, by the
// hostile-caller table's op. The recorded sessions of the SDKs show few
// of them with an account SAS; the others take the letter "Create an
// account SAS" gives the Blob operation they are made of (read r, write
// w, delete d, list l), never a service SAS letter an account SAS does
// not have (m, e, o) or has with another meaning (p).
var accountNeeds = map[string]accountNeed{
	"ListFilesystems": {[]string{"l"}, "azure-sdk-for-js sas.spec.ts: generateAccountSASQueryParameters should work " +
		"(rwdlacup lists filesystems), should not work with invalid permission (wd does not)"},
	"CreateFilesystem": {[]string{"cw"}, "azure-sdk-for-java SasTests accountSasCreateFileSystem (rc creates one), " +
		"accountSasCreateFileSystemError (r does not)"},
	"DeleteFilesystem":        {[]string{"d"}, `"Create an account SAS": Delete Container takes d`},
	"GetFilesystemProperties": {[]string{"r"}, `"Create an account SAS": Get Container Properties takes r`},
	"SetFilesystemProperties": {[]string{"w"}, `"Create an account SAS": Set Container Metadata takes w`},
	"ListPaths":               {[]string{"l"}, "azure-sdk-for-java SasTests accountSasTokenOnEndpoint (rcl lists paths)"},
	"CreateFile": {[]string{"cw"}, "azure-sdk-for-net DataLakeSasTests AccountSas_PermissionsOrder " +
		"(racwdlxyuptf and others create a file on the dfs endpoint)"},
	"CreateDirectory": {[]string{"cw"}, "azure-sdk-for-net DataLakeSasTests AccountSasPermissions_FileSystemToDirectory (cuprwdyla)"},
	"DeletePath":      {[]string{"d"}, "azure-sdk-for-java SasTests accountSasFileDeleteError (r deletes nothing)"},
	"GetPathStatus":   {[]string{"r"}, `"Create an account SAS" has no e: getStatus reads, as Get Blob Properties, with r`},
	"GetAccessControl": {[]string{"r"}, `"Create an account SAS" has no e: getAccessControl reads with r, ` +
		"as azdatalake's live TestFileGetAccessControlWithSAS reads it with a service SAS of racwd"},
	"SetAccessControl": {[]string{"w"}, `"Create an account SAS" has no p of Permissions (its p is Process): ` +
		"bits and ACLs are written with w"},
	"SetAccessControl(owner)":   {[]string{"w"}, `"Create an account SAS" has no o: the owner is written with w`},
	"SetAccessControlRecursive": {[]string{"w"}, "as SetAccessControl, on each path"},
	"SetPathProperties":         {[]string{"w"}, `"Create an account SAS": Set Blob Properties takes w`},
	"AppendData": {[]string{"aw"}, "azure-sdk-for-python live test_rename_file_with_account_sas appends with rwdc; " +
		`"Create an account SAS": Append Block takes a or w`},
	"FlushData": {[]string{"w"}, "azure-sdk-for-python live test_rename_file_with_account_sas flushes with rwdc; " +
		"azdatalake TestAccountEncryptionScopeSAS uploads with rcwd"},
	"LeasePath":      {[]string{"w"}, `"Create an account SAS": Lease Blob takes w`},
	"BreakPathLease": {[]string{"wd"}, `"Create an account SAS": Lease Blob's break takes w or d`},
	"RenamePath": {[]string{"w", "d"}, "azure-sdk-for-python live test_rename_file_with_account_sas renames with " +
		"srt=o and rwdc on both ends: the destination is written, the source removed"},
	"UndeletePath": {[]string{"w"}, `"Create an account SAS": Undelete Blob takes w`},
}

// accountSAS signs an account SAS of the blob service with perms on every
// resource type, as the Go SDK makes one.
var accountSAS = credential{name: "account SAS", sign: func(e *env, _, _, perms string) string {
	q, err := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
		Permissions: perms, ResourceTypes: "sco"}.SignWithSharedKey(e.cred())
	if err != nil {
		e.t.Fatal(err)
	}
	return q.Encode()
}}

// foreignLetterSAS signs an account SAS whose sp holds the letters of a
// service SAS that an account SAS does not have (m, e, o) and p: the SDKs
// refuse to make one, so it is signed by hand with the string-to-sign of
// "Create an account SAS" (version 2020-12-06 and later).
var foreignLetterSAS = credential{name: "account SAS of m, e, o and p", sign: func(*env, string, string, string) string {
	const version, perms, services, types, protocol = "2021-12-02", "meop", "b", "sco", "https,http"
	expiry := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	toSign := strings.Join([]string{lazulitest.Account, perms, services, types, "", expiry, "", protocol, version, "", ""}, "\n")
	mac := hmac.New(sha256.New, lazulitest.KeyBytes())
	mac.Write([]byte(toSign))
	return url.Values{"sv": {version}, "ss": {services}, "srt": {types}, "sp": {perms}, "se": {expiry}, "spr": {protocol},
		"sig": {base64.StdEncoding.EncodeToString(mac.Sum(nil))}}.Encode()
}}

// accountAttempts sends c signed with account SASes: with every account
// letter but the ones c needs, with only the service letters it does not
// have, and short of each string of need (refused); with one letter of
// each string, each letter in turn (granted).
func (h *hostileEnv) accountAttempts(c hostileCase, need accountNeed, method string) {
	t := h.t
	t.Logf("%s: %q, after %s", c.op, need.letters, need.source)
	refused := []string{without(accountLetters, strings.Join(need.letters, ""))}
	for i := range need.letters {
		if short := exactLetters(need.letters, i, ""); short != "" {
			refused = append(refused, short)
		}
	}
	for _, perms := range refused {
		resp, body := h.attempt(c, accountSAS, perms)
		wantRefused(t, method, resp, body, http.StatusForbidden, "AuthorizationPermissionMismatch")
	}
	resp, body := h.attempt(c, foreignLetterSAS, "")
	wantRefused(t, method, resp, body, http.StatusForbidden, "AuthorizationPermissionMismatch")
	for i, set := range need.letters {
		for _, letter := range set {
			resp, body := h.attempt(c, accountSAS, exactLetters(need.letters, i, string(letter)))
			wantGranted(t, resp, body)
		}
	}
}

// exactLetters is the first letter of each of sets but the i-th, which
// gives letter instead ("": none).
func exactLetters(sets []string, i int, letter string) string {
	var b strings.Builder
	for j, set := range sets {
		if j == i {
			b.WriteString(letter)
		} else {
			b.WriteByte(set[0])
		}
	}
	return b.String()
}
