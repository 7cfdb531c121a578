package blob

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

func TestParseTagsHeader(t *testing.T) {
	cases := []struct {
		raw, want, code string
	}{
		{"", "[]", ""},
		{"a=1&b=2", "[{a 1} {b 2}]", ""},
		{"b=2&a=1", "[{a 1} {b 2}]", ""},
		{"k+1=v%2F2", "[{k 1 v/2}]", ""},
		{"empty=", "[{empty }]", ""},
		{"=v", "", azerr.EmptyTagName},
		{"a=1&a=2", "", azerr.DuplicateTagNames},
		{"a%3F=1", "", azerr.InvalidTag},
		{"a=%zz", "", azerr.InvalidHeaderValue},
		{"1=a&2=a&3=a&4=a&5=a&6=a&7=a&8=a&9=a&10=a&11=a", "", azerr.TagsTooLarge},
	}
	for _, c := range cases {
		got, err := parseTagsHeader(c.raw)
		switch {
		case c.code != "" && !azerr.Is(err, c.code):
			t.Errorf("%q: want %s, got %v", c.raw, c.code, err)
		case c.code == "" && (err != nil || fmtTags(got) != c.want):
			t.Errorf("%q: got %s, %v", c.raw, fmtTags(got), err)
		}
	}
}

func fmtTags(s blobdata.TagSet) string {
	out := "["
	for i, t := range s {
		if i > 0 {
			out += " "
		}
		out += "{" + t.Key + " " + t.Value + "}"
	}
	return out + "]"
}

func TestParseTagsBody(t *testing.T) {
	cases := []struct {
		body, want, code string
	}{
		{``, "[]", ""},
		{`<Tags><TagSet></TagSet></Tags>`, "[]", ""},
		{`<?xml version="1.0"?><Tags><TagSet><Tag><Key>z</Key><Value>1</Value></Tag><Tag><Key>a</Key><Value></Value></Tag></TagSet></Tags>`, "[{a } {z 1}]", ""},
		{`<Tags><TagSet><Tag><Value>1</Value></Tag></TagSet></Tags>`, "", azerr.EmptyTagName},
		{`<Tags><TagSet><Tag><Key>a</Key>`, "", azerr.InvalidXmlDocument},
		{`<Other/>`, "", azerr.InvalidXmlDocument},
	}
	for _, c := range cases {
		got, err := parseTagsBody([]byte(c.body))
		switch {
		case c.code != "" && !azerr.Is(err, c.code):
			t.Errorf("%q: want %s, got %v", c.body, c.code, err)
		case c.code == "" && (err != nil || fmtTags(got) != c.want):
			t.Errorf("%q: got %s, %v", c.body, fmtTags(got), err)
		}
	}
}

func TestTagSetCodec(t *testing.T) {
	s, err := newTagSet([]blobdata.Tag{{Key: "b", Value: "2"}, {Key: "a", Value: ""}, {Key: "c", Value: "x y"}})
	if err != nil {
		t.Fatal(err)
	}
	var e record.Encoder
	s.Encode(&e)
	d := record.NewDecoder(e.Bytes())
	back := blobdata.DecodeTagSet(&d)
	if d.Err() != nil || !back.Equal(s) {
		t.Fatalf("round trip: %v %v", back, d.Err())
	}
	if v, ok := back.Get("c"); !ok || v != "x y" {
		t.Fatal("get")
	}
	if _, ok := back.Get("d"); ok {
		t.Fatal("get of a missing key")
	}
	d = record.NewDecoder([]byte{200})
	if blobdata.DecodeTagSet(&d); d.Err() == nil {
		t.Fatal("a corrupt tag set decoded")
	}
}
