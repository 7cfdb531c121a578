package main

import (
	"strings"
	"testing"
)

func TestParseTestEventsFindsLeaves(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"run","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test"}`,
		`{"Action":"run","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test/TestA"}`,
		`{"Action":"output","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test/TestA","Output":"    Error: boom\n"}`,
		`{"Action":"fail","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test/TestA"}`,
		`{"Action":"run","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test/TestB"}`,
		`{"Action":"pass","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test/TestB"}`,
		`{"Action":"run","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test/TestC"}`,
		`{"Action":"skip","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test/TestC"}`,
		`{"Action":"fail","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob","Test":"Test"}`,
		`{"Action":"fail","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"}`,
		`not json: go: downloading something`,
		// A test running when its binary panicked has no result.
		`{"Action":"run","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob","Test":"TestHangs"}`,
		`{"Action":"fail","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"}`,
		// A package that did not build.
		`{"ImportPath":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas [github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas.test]","Action":"build-output","Output":"x.go:1: undefined: y\n"}`,
		`{"Action":"fail","Package":"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"}`,
		// A parent that fails by itself while its only subtest passed.
		`{"Action":"run","Package":"github.com/Azure/azure-sdk-for-go/sdk/data/aztables","Test":"TestP"}`,
		`{"Action":"run","Package":"github.com/Azure/azure-sdk-for-go/sdk/data/aztables","Test":"TestP/sub"}`,
		`{"Action":"pass","Package":"github.com/Azure/azure-sdk-for-go/sdk/data/aztables","Test":"TestP/sub"}`,
		`{"Action":"fail","Package":"github.com/Azure/azure-sdk-for-go/sdk/data/aztables","Test":"TestP"}`,
	}, "\n")
	leaves, err := parseTestEvents(strings.NewReader(events))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]outcome{}
	for _, l := range leaves {
		got[l.ID()] = l.Outcome
	}
	want := map[string]outcome{
		"storage/azblob/blob Test/TestA": failed,
		"storage/azblob/blob Test/TestB": passed,
		"storage/azblob/blob Test/TestC": skipped,
		"storage/azblob TestHangs":       failed,
		"storage/azblob/sas":             failed,
		"data/aztables TestP/sub":        passed,
		"data/aztables TestP":            failed,
	}
	if len(got) != len(want) {
		t.Fatalf("leaves %v, want %v", got, want)
	}
	for id, o := range want {
		if got[id] != o {
			t.Errorf("%s: %q, want %q", id, got[id], o)
		}
	}
	for _, l := range leaves {
		if l.ID() == "storage/azblob/sas" && !strings.Contains(strings.Join(l.Output, "\n"), "undefined: y") {
			t.Errorf("build failure output lost: %q", l.Output)
		}
	}
}

func TestJudgeKeepsTheListShrinking(t *testing.T) {
	list, err := parseExpected(strings.NewReader(`
# comment
storage/azqueue Test/TestOauth Entra ID token needed
storage/azqueue Test/TestFixed was a Lazuli gap
storage/azqueue Test/TestSkipped needs a premium account
storage/azqueue Test/TestGone renamed upstream
storage/azqueue/sas - does not build
storage/azqueue Test/TestSometimes intermittent: fails under load
storage/azqueue Test/TestSometimesToo intermittent: fails under load
data/aztables TestOther another module's entry
`))
	if err != nil {
		t.Fatal(err)
	}
	leaves := []leaf{
		{Package: "storage/azqueue", Test: "Test/TestOauth", Outcome: failed},
		{Package: "storage/azqueue", Test: "Test/TestFixed", Outcome: passed},
		{Package: "storage/azqueue", Test: "Test/TestSkipped", Outcome: skipped},
		{Package: "storage/azqueue", Test: "Test/TestNew", Outcome: failed},
		{Package: "storage/azqueue", Test: "Test/TestFine", Outcome: passed},
		{Package: "storage/azqueue", Test: "Test/TestSkip", Outcome: skipped},
		{Package: "storage/azqueue/sas", Outcome: failed},
		{Package: "storage/azqueue", Test: "Test/TestSometimes", Outcome: passed},
		{Package: "storage/azqueue", Test: "Test/TestSometimesToo", Outcome: failed},
	}
	v := judge("storage/azqueue", leaves, list)
	if v.Passed != 2 || v.ExpectedFail != 3 || v.Skipped != 1 || len(v.Intermittent) != 2 {
		t.Errorf("counts %+v", v)
	}
	if len(v.Unexpected) != 1 || v.Unexpected[0].Test != "Test/TestNew" {
		t.Errorf("unexpected %+v", v.Unexpected)
	}
	if len(v.Fixed) != 1 || v.Fixed[0] != "storage/azqueue Test/TestFixed" {
		t.Errorf("fixed %v", v.Fixed)
	}
	wantStale := []string{"storage/azqueue Test/TestGone (did not run)", "storage/azqueue Test/TestSkipped (skipped)"}
	if strings.Join(v.Stale, "|") != strings.Join(wantStale, "|") {
		t.Errorf("stale %v, want %v", v.Stale, wantStale)
	}
	if v.ok() {
		t.Error("a verdict with unexpected failures passed")
	}
}

func TestParseExpectedRefusesBadLines(t *testing.T) {
	for _, in := range []string{
		"storage/azqueue Test/TestX\n",                                 // no reason
		"storage/azqueue Test/TestX a\nstorage/azqueue Test/TestX b\n", // twice
	} {
		if _, err := parseExpected(strings.NewReader(in)); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}
