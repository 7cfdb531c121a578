// Package auth authenticates Azure Storage requests and authorizes what the
// authenticated caller may do.
//
// Authentication (Authenticator.Authenticate) runs once per request in the
// shared middleware. It checks the credentials a request carries — a Shared
// Key or Shared Key Lite Authorization header, an OAuth Bearer token (with
// --oauth; bearer.go, jwt.go), or a shared access signature (SAS) in the
// query, user delegation SAS included (delegationsas.go) — against the keys
// of the addressed account and returns an Identity. A request without
// credentials is Anonymous; whether that is enough is decided later, per
// operation.
//
// Authorization (Identity.Allow) applies what the matched row of a
// service's route table declares its operation needs (a Need), once the
// request is routed and its target known. A Shared Key or Bearer caller may do
// anything; a SAS caller only what its signed services, resource types,
// resource scope, permissions, time window, source IP range and protocol
// allow (a user delegation SAS also only while its key is valid); an
// anonymous caller only what a public container allows.
//
// Signature verification follows the Azure Storage REST documentation and, where
// the official SDKs canonicalise differently from the documentation (header
// ordering, query-name case, whitespace in header values), also accepts the
// SDKs' form, so that every SDK version that works against Azure works here.
// Keys are compared with hmac.Equal against every key of the account, so key
// rotation works as it does in Azure.
package auth
