package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// sdkModule is one official Go SDK module whose own tests the run takes.
type sdkModule struct {
	// Name is the module path below the SDK repository's sdk/ directory,
	// which also prefixes its packages in the expected-failures list.
	Name    string
	Version string
}

// The versions Lazuli's go.mod requires.
var sdkModules = []sdkModule{
	{"storage/azblob", "v1.8.3"},
	{"storage/azqueue", "v1.0.1"},
	{"storage/azfile", "v1.7.1"},
	{"data/aztables", "v1.4.0"},
	{"storage/azdatalake", "v1.4.2"},
}

func (m sdkModule) Path() string { return sdkPrefix + m.Name }

// Short is the last element of the name: azblob, azqueue, ...
func (m sdkModule) Short() string { return filepath.Base(m.Name) }

// download fetches the module into the module cache (a no-op when it is
// there) and returns its directory there.
func (m sdkModule) download() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", m.Path()+"@"+m.Version)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v\n%s%s", m.Path(), m.Version, err, out, stderr.Bytes())
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", err
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", m.Path(), m.Version, info.Error)
	}
	return info.Dir, nil
}

// copyModule copies the module cache's read-only tree to dst, writable,
// so that `go test` may build there; nothing in it is changed.
func copyModule(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// testEnv is the environment of the SDK test processes: the caller's,
// less anything that would point them at real Azure (credentials, CI
// markers that make the recording package start its own proxy), plus env.
func testEnv(env map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		switch {
		case strings.HasPrefix(upper, "AZURE"), strings.HasPrefix(upper, "TABLES_"),
			strings.HasSuffix(upper, "_PROXY"), upper == "TF_BUILD", upper == "GITHUB_ACTIONS",
			upper == "SYSTEM_ACCESSTOKEN", upper == "SSL_CERT_FILE", upper == "SSL_CERT_DIR",
			upper == "GOWORK", upper == "GOFLAGS", strings.HasSuffix(upper, "_STORAGE_ACCOUNT_NAME"),
			strings.HasSuffix(upper, "_STORAGE_ACCOUNT_KEY"), upper == "MSI_ENDPOINT", upper == "IDENTITY_ENDPOINT":
			continue
		}
		out = append(out, kv)
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}
