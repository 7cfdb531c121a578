// Package svcprops holds the service properties every Azure Storage service
// shares in shape (logging, metrics, CORS rules, default service version,
// delete retention), their XML form for Get/Set Service Properties, their
// validation, and their persistence per account and service. The shared
// middleware reads the CORS rules from here.
package svcprops

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Properties is StorageServiceProperties. Pointers distinguish an element
// absent from a Set request (the stored value is kept) from one set empty.
type Properties struct {
	XMLName               xml.Name         `xml:"StorageServiceProperties" json:"-"`
	Logging               *Logging         `xml:"Logging,omitempty" json:",omitempty"`
	HourMetrics           *Metrics         `xml:"HourMetrics,omitempty" json:",omitempty"`
	MinuteMetrics         *Metrics         `xml:"MinuteMetrics,omitempty" json:",omitempty"`
	Cors                  *CorsRules       `xml:"Cors,omitempty" json:",omitempty"`
	DefaultServiceVersion *string          `xml:"DefaultServiceVersion,omitempty" json:",omitempty"`
	DeleteRetentionPolicy *RetentionPolicy `xml:"DeleteRetentionPolicy,omitempty" json:",omitempty"`
	StaticWebsite         *StaticWebsite   `xml:"StaticWebsite,omitempty" json:",omitempty"`
	// File service only.
	ShareDeleteRetentionPolicy *RetentionPolicy  `xml:"ShareDeleteRetentionPolicy,omitempty" json:",omitempty"`
	ProtocolSettings           *ProtocolSettings `xml:"ProtocolSettings,omitempty" json:",omitempty"`
	// IsVersioningEnabled is a Lazuli extension of the Blob service: Azure
	// turns blob versioning on in the account's management settings, which
	// an emulator does not have, so it is set here instead.
	IsVersioningEnabled *bool `xml:"IsVersioningEnabled,omitempty" json:",omitempty"`
	// ImmutableStorageWithVersioning is a Lazuli extension of the Blob
	// service for what Azure sets in the management plane: version-level
	// immutability for every container of the account.
	ImmutableStorageWithVersioning *ImmutableStorage `xml:"ImmutableStorageWithVersioning,omitempty" json:",omitempty"`
	// ContainerDeleteRetentionPolicy is a Lazuli extension of the Blob
	// service for Azure's management-plane container soft delete.
	ContainerDeleteRetentionPolicy *RetentionPolicy `xml:"ContainerDeleteRetentionPolicy,omitempty" json:",omitempty"`
}

// ImmutableStorage is the version-level immutability setting.
type ImmutableStorage struct {
	Enabled bool `xml:"Enabled"`
}

// Logging is the Storage Analytics logging setting.
type Logging struct {
	Version         string          `xml:"Version"`
	Delete          bool            `xml:"Delete"`
	Read            bool            `xml:"Read"`
	Write           bool            `xml:"Write"`
	RetentionPolicy RetentionPolicy `xml:"RetentionPolicy"`
}

// Metrics is an hour or minute metrics setting.
type Metrics struct {
	Version         string          `xml:"Version,omitempty"`
	Enabled         bool            `xml:"Enabled"`
	IncludeAPIs     *bool           `xml:"IncludeAPIs,omitempty"`
	RetentionPolicy RetentionPolicy `xml:"RetentionPolicy"`
}

// RetentionPolicy is a retention setting in days.
type RetentionPolicy struct {
	Enabled              bool  `xml:"Enabled"`
	Days                 *int  `xml:"Days,omitempty"`
	AllowPermanentDelete *bool `xml:"AllowPermanentDelete,omitempty"`

	// enabledMissing records a policy sent without its Enabled element.
	enabledMissing bool
}

// UnmarshalXML reads a retention policy, noting a missing Enabled: the
// element is required, and the service refuses an empty policy (azblob's
// TestAccountDeleteRetentionPolicyEmpty).
func (rp *RetentionPolicy) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	var wire struct {
		Enabled              *bool `xml:"Enabled"`
		Days                 *int  `xml:"Days"`
		AllowPermanentDelete *bool `xml:"AllowPermanentDelete"`
	}
	if err := d.DecodeElement(&wire, &start); err != nil {
		return err
	}
	*rp = RetentionPolicy{Days: wire.Days, AllowPermanentDelete: wire.AllowPermanentDelete, enabledMissing: wire.Enabled == nil}
	if wire.Enabled != nil {
		rp.Enabled = *wire.Enabled
	}
	return nil
}

// StaticWebsite is the blob service's static website setting.
type StaticWebsite struct {
	Enabled                  bool   `xml:"Enabled"`
	IndexDocument            string `xml:"IndexDocument,omitempty"`
	ErrorDocument404Path     string `xml:"ErrorDocument404Path,omitempty"`
	DefaultIndexDocumentPath string `xml:"DefaultIndexDocumentPath,omitempty"`
}

// ProtocolSettings is the file service's SMB settings, stored and returned.
type ProtocolSettings struct {
	Inner []byte `xml:",innerxml"`
}

// CorsRules is the Cors element.
type CorsRules struct {
	Rules []CorsRule `xml:"CorsRule"`
}

// CorsRule is one CORS rule; list fields are comma-separated as on the wire.
type CorsRule struct {
	AllowedOrigins  string `xml:"AllowedOrigins"`
	AllowedMethods  string `xml:"AllowedMethods"`
	MaxAgeInSeconds int    `xml:"MaxAgeInSeconds"`
	ExposedHeaders  string `xml:"ExposedHeaders"`
	AllowedHeaders  string `xml:"AllowedHeaders"`
}

// Defaults are the properties of an account that never set them.
func Defaults() Properties {
	off := RetentionPolicy{Enabled: false}
	return Properties{
		Logging:       &Logging{Version: "1.0", RetentionPolicy: off},
		HourMetrics:   &Metrics{Version: "1.0", RetentionPolicy: off},
		MinuteMetrics: &Metrics{Version: "1.0", RetentionPolicy: off},
		Cors:          &CorsRules{},
	}
}

// Parse reads and validates a Set Service Properties body.
func Parse(r io.Reader) (Properties, error) {
	var p Properties
	body, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return p, err
	}
	if err := xml.Unmarshal(body, &p); err != nil {
		return p, azerr.New(azerr.InvalidXmlDocument)
	}
	return p, p.validate()
}

// ParseNonEmpty is Parse for the Queue service, which refuses a document
// whose StorageServiceProperties element sets nothing with 400
// InvalidXmlDocument (recorded live session: azure-sdk-for-python
// azure-storage-queue test_queue_service_properties_async.test_too_many_cors_rules,
// which sends "<StorageServiceProperties />"). No recording shows the Blob,
// File or Table service answering that body (their SDKs refuse to send it),
// so they keep Parse.
func ParseNonEmpty(r io.Reader) (Properties, error) {
	p, err := Parse(r)
	if err == nil && p.setsNothing() {
		return p, azerr.New(azerr.InvalidXmlDocument)
	}
	return p, err
}

// setsNothing reports whether no element of the document was present:
// every setting is a pointer, nil when absent.
func (p Properties) setsNothing() bool {
	v := reflect.ValueOf(p)
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return false
		}
	}
	return true
}

var corsMethods = map[string]bool{"DELETE": true, "GET": true, "HEAD": true, "MERGE": true, "POST": true,
	"OPTIONS": true, "PUT": true, "PATCH": true, "CONNECT": true, "TRACE": true}

func (p Properties) validate() error {
	for _, rp := range []*RetentionPolicy{retention(p.Logging), metricsRetention(p.HourMetrics),
		metricsRetention(p.MinuteMetrics), p.DeleteRetentionPolicy, p.ShareDeleteRetentionPolicy,
		p.ContainerDeleteRetentionPolicy} {
		if rp != nil && rp.enabledMissing {
			return azerr.New(azerr.InvalidXmlDocument)
		}
		if rp == nil || !rp.Enabled {
			continue
		}
		// An enabled policy needs 1 to 365 days; the service answers a
		// missing or out-of-range Days with InvalidXmlDocument (azblob's
		// TestAccountDeleteRetentionPolicyDaysTooLarge and ...DaysOmitted).
		if rp.Days == nil || *rp.Days < 1 || *rp.Days > 365 {
			return azerr.New(azerr.InvalidXmlDocument)
		}
	}
	if p.Cors == nil {
		return nil
	}
	if len(p.Cors.Rules) > 5 {
		return azerr.New(azerr.InvalidXmlDocument)
	}
	for _, rule := range p.Cors.Rules {
		if strings.TrimSpace(rule.AllowedOrigins) == "" || strings.TrimSpace(rule.AllowedMethods) == "" {
			return azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "CorsRule")
		}
		for _, m := range splitList(rule.AllowedMethods) {
			if !corsMethods[strings.ToUpper(m)] {
				return azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "AllowedMethods")
			}
		}
		if rule.MaxAgeInSeconds < 0 {
			return azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "MaxAgeInSeconds")
		}
	}
	return nil
}

func retention(l *Logging) *RetentionPolicy {
	if l == nil {
		return nil
	}
	return &l.RetentionPolicy
}

func metricsRetention(m *Metrics) *RetentionPolicy {
	if m == nil {
		return nil
	}
	return &m.RetentionPolicy
}

// Merge overlays the elements present in set onto p.
func (p Properties) Merge(set Properties) Properties {
	if set.Logging != nil {
		p.Logging = set.Logging
	}
	if set.HourMetrics != nil {
		p.HourMetrics = set.HourMetrics
	}
	if set.MinuteMetrics != nil {
		p.MinuteMetrics = set.MinuteMetrics
	}
	if set.Cors != nil {
		p.Cors = set.Cors
	}
	if set.DefaultServiceVersion != nil {
		p.DefaultServiceVersion = set.DefaultServiceVersion
	}
	if set.DeleteRetentionPolicy != nil {
		p.DeleteRetentionPolicy = set.DeleteRetentionPolicy
	}
	if set.StaticWebsite != nil {
		p.StaticWebsite = set.StaticWebsite
	}
	if set.ShareDeleteRetentionPolicy != nil {
		p.ShareDeleteRetentionPolicy = set.ShareDeleteRetentionPolicy
	}
	if set.ProtocolSettings != nil {
		p.ProtocolSettings = set.ProtocolSettings
	}
	if set.IsVersioningEnabled != nil {
		p.IsVersioningEnabled = set.IsVersioningEnabled
	}
	if set.ImmutableStorageWithVersioning != nil {
		p.ImmutableStorageWithVersioning = set.ImmutableStorageWithVersioning
	}
	if set.ContainerDeleteRetentionPolicy != nil {
		p.ContainerDeleteRetentionPolicy = set.ContainerDeleteRetentionPolicy
	}
	return p
}

// Marshal renders p as the Get Service Properties body.
func (p Properties) Marshal() []byte {
	b, _ := xml.Marshal(p)
	return append([]byte(xml.Header), b...)
}

func key(account, service string) []byte {
	return store.NewKey(store.SpaceAccount).Str(account).Str(service).Str("properties")
}

// Key is the store key of an account's service properties, for a caller
// that caches what it derives from them and must see when they change.
func Key(account, service string) []byte { return key(account, service) }

// Load reads the stored properties of account's service, or the defaults.
func Load(tx store.Tx, account, service string) (Properties, error) {
	v, err := tx.Get(key(account, service))
	if errors.Is(err, store.ErrNotFound) {
		return Defaults(), nil
	}
	if err != nil {
		return Properties{}, err
	}
	var p Properties
	if err := json.Unmarshal(v, &p); err != nil {
		return Properties{}, err
	}
	return p, nil
}

// Save stores the properties of account's service.
func Save(tx store.Tx, account, service string, p Properties) error {
	v, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return tx.Put(key(account, service), v)
}

// Get loads the properties in their own snapshot.
func Get(ctx context.Context, st store.Store, account, service string) (Properties, error) {
	var p Properties
	err := st.View(ctx, func(tx store.Tx) error {
		var err error
		p, err = Load(tx, account, service)
		return err
	})
	return p, err
}

// Set merges a Set Service Properties request into the stored properties.
func Set(ctx context.Context, st store.Store, account, service string, set Properties) error {
	err := st.Update(ctx, func(tx store.Tx) error {
		p, err := Load(tx, account, service)
		if err != nil {
			return err
		}
		return Save(tx, account, service, p.Merge(set))
	})
	// Counted once committed (and also when the commit's outcome is
	// unknown), so a cached copy read before it is not used again.
	Forget()
	return err
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
