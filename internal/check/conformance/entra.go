package main

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// The identity the run's token service issues tokens to, handed to the
// tests as an Entra ID service principal (AZURE_TENANT_ID, AZURE_CLIENT_ID,
// AZURE_CLIENT_SECRET), which their DefaultAzureCredential picks up.
const (
	entraHost      = "login.microsoftonline.com"
	entraTenant    = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	entraClientID  = "3b9e6f7a-8d1c-4e2b-9a5f-0c7d2e1f4a6b"
	entraObjectID  = "5c1f2e3d-4b6a-4789-8c0d-1e2f3a4b5c6d"
	entraSecret    = "lazuli-conformance-secret"
	tokenLifetime  = time.Hour
	jwtSigningAlgo = "RS256"
)

// tokenService stands in for Entra ID's token endpoints at
// login.microsoftonline.com, which the proxy routes here: the instance and
// tenant discovery documents MSAL reads and a client-credentials token
// endpoint. Its tokens are signed with a key made for the run, whose
// public half Lazuli verifies them with (--oauthKeys), so the SDK tests
// that authenticate with a token credential exercise Lazuli's OAuth as
// they exercise Azure's.
type tokenService struct {
	key      *rsa.PrivateKey
	listener net.Listener
	server   *http.Server
}

// startTokenService listens on loopback with the run's certificate and
// writes the public key Lazuli checks signatures with to keyFile.
func startTokenService(files tlsFiles, keyFile string) (*tokenService, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600); err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &tokenService{key: key, listener: l}
	s.server = &http.Server{Handler: s, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, ReadHeaderTimeout: 10 * time.Second}
	go s.server.ServeTLS(l, "", "")
	return s, nil
}

func (s *tokenService) Addr() string { return s.listener.Addr().String() }

func (s *tokenService) Close() error { return s.server.Close() }

// env is what the tests need to sign in.
func (s *tokenService) env() map[string]string {
	return map[string]string{"AZURE_TENANT_ID": entraTenant, "AZURE_CLIENT_ID": entraClientID, "AZURE_CLIENT_SECRET": entraSecret}
}

func (s *tokenService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	base := "https://" + entraHost + "/"
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/common/discovery/instance":
		// Instance discovery: the tenant's OpenID configuration is where
		// the authority says; no aliases beyond this host.
		tenant := tenantOf(r.URL.Query().Get("authorization_endpoint"))
		writeJSON(w, http.StatusOK, map[string]any{
			"tenant_discovery_endpoint": base + tenant + "/v2.0/.well-known/openid-configuration",
			"api-version":               "1.1",
			"metadata": []map[string]any{{"preferred_network": entraHost, "preferred_cache": entraHost,
				"aliases": []string{entraHost}}},
		})
	case r.Method == http.MethodGet && len(parts) == 4 && parts[1] == "v2.0" && parts[2] == ".well-known":
		tenant := parts[0]
		writeJSON(w, http.StatusOK, map[string]any{
			"token_endpoint":         base + tenant + "/oauth2/v2.0/token",
			"authorization_endpoint": base + tenant + "/oauth2/v2.0/authorize",
			"issuer":                 base + tenant + "/v2.0",
		})
	case r.Method == http.MethodPost && len(parts) == 4 && parts[1] == "oauth2" && parts[3] == "token":
		s.token(w, r, parts[0])
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not_found", "error_description": "the conformance token service serves only discovery and client-credentials tokens"})
	}
}

// token answers a client-credentials grant for the run's principal with a
// v1 access token for the resource the scope names.
func (s *tokenService) token(w http.ResponseWriter, r *http.Request, tenant string) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": err.Error()})
		return
	}
	if r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("client_id") != entraClientID || r.PostForm.Get("client_secret") != entraSecret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "unknown client or grant"})
		return
	}
	// MSAL adds the OpenID scopes (openid, profile, offline_access) to the
	// resource's ".default" one.
	var resource string
	for _, scope := range strings.Fields(r.PostForm.Get("scope")) {
		if strings.HasSuffix(scope, "/.default") {
			resource = strings.TrimSuffix(scope, "/.default")
		}
	}
	if resource == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_scope", "error_description": "a <resource>/.default scope is required"})
		return
	}
	now := time.Now()
	claims := map[string]any{
		"aud": resource,
		"iss": "https://sts.windows.net/" + tenant + "/",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(tokenLifetime).Unix(),
		"appid": entraClientID, "oid": entraObjectID, "sub": entraObjectID, "tid": tenant, "ver": "1.0",
	}
	token, err := s.sign(claims)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error", "error_description": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": int(tokenLifetime.Seconds()),
		"ext_expires_in": int(tokenLifetime.Seconds()), "access_token": token})
}

func (s *tokenService) sign(claims map[string]any) (string, error) {
	header, err := json.Marshal(map[string]string{"alg": jwtSigningAlgo, "typ": "JWT"})
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signed := enc.EncodeToString(header) + "." + enc.EncodeToString(body)
	digest := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.key, crypto.SHA256, digest[:])
	if err != nil {
		return "", err
	}
	return signed + "." + enc.EncodeToString(sig), nil
}

// tenantOf takes the tenant from an authority URL
// ("https://login.microsoftonline.com/<tenant>/oauth2/v2.0/authorize").
func tenantOf(authorizationEndpoint string) string {
	rest := strings.TrimPrefix(authorizationEndpoint, "https://"+entraHost+"/")
	if tenant, _, ok := strings.Cut(rest, "/"); ok && tenant != "" {
		return tenant
	}
	return entraTenant
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
