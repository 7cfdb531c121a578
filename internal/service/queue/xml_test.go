package queue

import (
	"bytes"
	"encoding/xml"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestParseMessageBody(t *testing.T) {
	cases := []struct {
		name, body, text string
		present          bool
		code             string
	}{
		{"sdk form", xml.Header + "<QueueMessage><MessageText>aGVsbG8=</MessageText></QueueMessage>", "aGVsbG8=", true, ""},
		{"no declaration, spaces", "  <QueueMessage>\n <MessageText>a b\tc\n</MessageText>\n</QueueMessage> ", "a b\tc\n", true, ""},
		{"empty text", "<QueueMessage><MessageText></MessageText></QueueMessage>", "", true, ""},
		{"self-closing text", "<QueueMessage><MessageText/></QueueMessage>", "", true, ""},
		{"escaped", "<QueueMessage><MessageText>&lt;a&gt; &amp; &#xD;&#xA;</MessageText></QueueMessage>", "<a> & \r\n", true, ""},
		{"unicode", "<QueueMessage><MessageText>héllo ☃</MessageText></QueueMessage>", "héllo ☃", true, ""},
		{"markup stripped", "<QueueMessage><MessageText>a<b>x</b>c</MessageText></QueueMessage>", "ac", true, ""},
		{"cdata", "<QueueMessage><MessageText><![CDATA[<x>]]></MessageText></QueueMessage>", "<x>", true, ""},
		{"no text", "<QueueMessage></QueueMessage>", "", false, ""},
		{"wrong root", "<Message><MessageText>a</MessageText></Message>", "", false, azerr.InvalidXmlDocument},
		{"not xml", "hello", "", false, azerr.InvalidXmlDocument},
		{"empty", "", "", false, azerr.InvalidXmlDocument},
		{"truncated", "<QueueMessage><MessageText>abc", "", false, azerr.InvalidXmlDocument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, present, err := parseMessageBody([]byte(c.body))
			if c.code != "" {
				if !azerr.Is(err, c.code) {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				return
			}
			if err != nil || present != c.present || string(text) != c.text {
				t.Fatalf("got %q, %v, %v; want %q, %v", text, present, err, c.text, c.present)
			}
		})
	}
}

// decodeText reads a MessageText element with the standard XML decoder.
func decodeText(t *testing.T, doc []byte) (string, bool) {
	t.Helper()
	var v queueMessageXML
	if err := xml.Unmarshal(doc, &v); err != nil || v.MessageText == nil {
		return "", false
	}
	return *v.MessageText, true
}

// The fast path must agree with the XML decoder on every body it accepts,
// and any text rendered with xmlw.MessageText must read back unchanged.
func FuzzParseMessageBody(f *testing.F) {
	f.Add([]byte(xml.Header + "<QueueMessage><MessageText>aGVsbG8=</MessageText></QueueMessage>"))
	f.Add([]byte("<QueueMessage><MessageText>a&amp;b</MessageText></QueueMessage>"))
	f.Add([]byte("<QueueMessage> <MessageText>x\ny</MessageText> </QueueMessage>"))
	f.Add([]byte("<?xml?><QueueMessage><MessageText>\r</MessageText></QueueMessage>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if fast, ok := plainMessage(body); ok {
			want, present := decodeText(t, body)
			if !present || want != string(fast) {
				t.Fatalf("fast path read %q, decoder %q (present %v)", fast, want, present)
			}
		}
		text, present, err := parseMessageBody(body)
		if err != nil || !present || !utf8Valid(text) {
			return
		}
		doc := append([]byte("<QueueMessage><MessageText>"), xmlw.Append(nil, text, xmlw.MessageText)...)
		doc = append(doc, "</MessageText></QueueMessage>"...)
		again, ok, err := parseMessageBody(doc)
		if err != nil || !ok || !bytes.Equal(again, text) {
			t.Fatalf("text %q rendered as %q reads back as %q (%v)", text, doc, again, err)
		}
	})
}

func utf8Valid(b []byte) bool { return checkMessageText(b) == nil }

func TestCheckMessageText(t *testing.T) {
	if err := checkMessageText(bytes.Repeat([]byte("a"), 64<<10)); err != nil {
		t.Fatalf("64 KiB rejected: %v", err)
	}
	err := checkMessageText(bytes.Repeat([]byte("a"), 64<<10+1))
	if e, ok := azerr.As(err); !ok || e.Status != 413 || e.Code != azerr.RequestBodyTooLarge || detail(err, "MaxLimit") != "65536" {
		t.Fatalf("64 KiB + 1: %v", err)
	}
}

// xmlMessage mirrors the SDK's view of a QueueMessage element.
type xmlMessage struct {
	MessageID       string  `xml:"MessageId"`
	InsertionTime   string  `xml:"InsertionTime"`
	ExpirationTime  string  `xml:"ExpirationTime"`
	PopReceipt      *string `xml:"PopReceipt"`
	TimeNextVisible *string `xml:"TimeNextVisible"`
	DequeueCount    *int    `xml:"DequeueCount"`
	MessageText     *string `xml:"MessageText"`
}

func TestAppendMessageList(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	m := message{VisibleAt: nanos(at.Add(time.Minute)), Seq: 1, ID: guid.NewRaw(), Inserted: nanos(at), Expires: neverExpires,
		Nonce: 5, Dequeues: 2, Text: []byte("a<b>&\r\n")}
	for _, c := range []struct {
		kind                 listKind
		receipt, text, count bool
	}{{sentList, true, false, false}, {dequeuedList, true, true, true}, {peekedList, false, true, true}} {
		body := appendMessageList(nil, c.kind, []message{m, m})
		if !bytes.HasPrefix(body, []byte(xmlw.DeclLower)) {
			t.Fatalf("no declaration: %s", body)
		}
		var doc struct {
			Items []xmlMessage `xml:"QueueMessage"`
		}
		if err := xml.Unmarshal(body, &doc); err != nil || len(doc.Items) != 2 {
			t.Fatalf("kind %d: %v %s", c.kind, err, body)
		}
		got := doc.Items[0]
		if got.MessageID != guid.Format(m.ID) || got.InsertionTime != "Mon, 06 May 2024 07:08:09 GMT" ||
			got.ExpirationTime != "Fri, 31 Dec 9999 23:59:59 GMT" {
			t.Fatalf("kind %d: %+v", c.kind, got)
		}
		if (got.PopReceipt != nil) != c.receipt || (got.TimeNextVisible != nil) != c.receipt ||
			(got.MessageText != nil) != c.text || (got.DequeueCount != nil) != c.count {
			t.Fatalf("kind %d: fields %+v", c.kind, got)
		}
		if c.receipt && (*got.PopReceipt != receiptOf(&m).String() || *got.TimeNextVisible != "Mon, 06 May 2024 07:09:09 GMT") {
			t.Fatalf("kind %d: receipt fields %+v", c.kind, got)
		}
		if c.text && (*got.MessageText != string(m.Text) || *got.DequeueCount != 2) {
			t.Fatalf("kind %d: text %q count %d", c.kind, *got.MessageText, *got.DequeueCount)
		}
	}
}
