package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

func TestAzuriteCommandNames(t *testing.T) {
	for _, c := range []struct {
		argv0 string
		want  []string
	}{
		{"/usr/local/bin/lazuli", []string{"--blobHost", "0.0.0.0"}},
		{"/usr/local/bin/azurite", []string{"--blobHost", "0.0.0.0"}},
		{"azurite-blob", []string{"--services", "blob", "--blobHost", "0.0.0.0"}},
		{"/x/azurite-queue", []string{"--services", "queue", "--blobHost", "0.0.0.0"}},
		{"azurite-table", []string{"--services", "table", "--blobHost", "0.0.0.0"}},
	} {
		if got := azuriteCommand(c.argv0, []string{"--blobHost", "0.0.0.0"}); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.argv0, got, c.want)
		}
	}
}

// The ready message carries the lines Testcontainers' Azurite module waits
// for, one per service.
func TestReadyLinesMatchAzurite(t *testing.T) {
	cfg, err := config.Parse([]string{"--inMemoryPersistence", "--blobPort", "0", "--queuePort", "0", "--tablePort", "0",
		"--filePort", "0", "--smbPort", "0", "--adminPort", "0"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(context.Background(), cfg, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Close(ctx)
	}()
	var out bytes.Buffer
	printReady(&out, a)
	for _, svc := range []string{"Blob", "Queue", "Table"} {
		if !regexp.MustCompile(svc + ` service is successfully listening at http://127\.0\.0\.1:\d+`).Match(out.Bytes()) {
			t.Errorf("no %q line in:\n%s", svc+" service is successfully listening", out.String())
		}
	}
}
