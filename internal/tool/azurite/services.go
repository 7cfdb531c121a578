package azurite

import (
	"bytes"
	"fmt"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

// azServiceProps is a document of a service's $SERVICES_COLLECTION$: the
// account's Set Service Properties request as Azurite's serializer read
// it (its models StorageServiceProperties and TableServiceProperties),
// an element never set being absent. The Table service keeps only
// logging, metrics and CORS; the Queue service no static website or
// delete retention.
type azServiceProps struct {
	Account               string           `json:"accountName"`
	Logging               *azLogging       `json:"logging"`
	HourMetrics           *azMetrics       `json:"hourMetrics"`
	MinuteMetrics         *azMetrics       `json:"minuteMetrics"`
	Cors                  []azCorsRule     `json:"cors"`
	DefaultServiceVersion *string          `json:"defaultServiceVersion"`
	DeleteRetentionPolicy *azRetention     `json:"deleteRetentionPolicy"`
	StaticWebsite         *azStaticWebsite `json:"staticWebsite"`
}

type azLogging struct {
	Version         string      `json:"version"`
	Delete          bool        `json:"deleteProperty"`
	Read            bool        `json:"read"`
	Write           bool        `json:"write"`
	RetentionPolicy azRetention `json:"retentionPolicy"`
}

type azMetrics struct {
	Version         string      `json:"version"`
	Enabled         bool        `json:"enabled"`
	IncludeAPIs     *bool       `json:"includeAPIs"`
	RetentionPolicy azRetention `json:"retentionPolicy"`
}

type azRetention struct {
	Enabled              bool  `json:"enabled"`
	Days                 *int  `json:"days"`
	AllowPermanentDelete *bool `json:"allowPermanentDelete"`
}

type azCorsRule struct {
	AllowedOrigins  string `json:"allowedOrigins"`
	AllowedMethods  string `json:"allowedMethods"`
	AllowedHeaders  string `json:"allowedHeaders"`
	ExposedHeaders  string `json:"exposedHeaders"`
	MaxAgeInSeconds int    `json:"maxAgeInSeconds"`
}

type azStaticWebsite struct {
	Enabled                  bool   `json:"enabled"`
	IndexDocument            string `json:"indexDocument"`
	ErrorDocument404Path     string `json:"errorDocument404Path"`
	DefaultIndexDocumentPath string `json:"defaultIndexDocumentPath"`
}

// planServiceProps plans the import of every account's properties of one
// service from db's $SERVICES_COLLECTION$.
func planServiceProps(db lokiDB, svc auth.Service, p *plan) error {
	return each(db, "$SERVICES_COLLECTION$", func(d *azServiceProps) error {
		props, err := d.properties()
		if err != nil {
			return fmt.Errorf("%s service properties of account %s: %w", svc, d.Account, err)
		}
		p.ServiceProperties++
		p.write(func(tx store.Tx) error { return svcprops.Save(tx, d.Account, string(svc), props) })
		return nil
	})
}

// properties are the document's settings over the defaults of an account
// that never set any, checked as a Set Service Properties request is
// (svcprops.Parse), so that nothing the service would refuse is stored.
func (d *azServiceProps) properties() (svcprops.Properties, error) {
	var set svcprops.Properties
	if l := d.Logging; l != nil {
		set.Logging = &svcprops.Logging{Version: l.Version, Delete: l.Delete, Read: l.Read, Write: l.Write,
			RetentionPolicy: l.RetentionPolicy.policy()}
	}
	set.HourMetrics = d.HourMetrics.metrics()
	set.MinuteMetrics = d.MinuteMetrics.metrics()
	if d.Cors != nil {
		set.Cors = &svcprops.CorsRules{}
		for _, r := range d.Cors {
			set.Cors.Rules = append(set.Cors.Rules, svcprops.CorsRule{AllowedOrigins: r.AllowedOrigins,
				AllowedMethods: r.AllowedMethods, AllowedHeaders: r.AllowedHeaders, ExposedHeaders: r.ExposedHeaders,
				MaxAgeInSeconds: r.MaxAgeInSeconds})
		}
	}
	set.DefaultServiceVersion = d.DefaultServiceVersion
	if r := d.DeleteRetentionPolicy; r != nil {
		policy := r.policy()
		set.DeleteRetentionPolicy = &policy
	}
	if w := d.StaticWebsite; w != nil {
		set.StaticWebsite = (*svcprops.StaticWebsite)(w)
	}
	checked, err := svcprops.Parse(bytes.NewReader(set.Marshal()))
	if err != nil {
		return svcprops.Properties{}, err
	}
	return svcprops.Defaults().Merge(checked), nil
}

func (m *azMetrics) metrics() *svcprops.Metrics {
	if m == nil {
		return nil
	}
	return &svcprops.Metrics{Version: m.Version, Enabled: m.Enabled, IncludeAPIs: m.IncludeAPIs,
		RetentionPolicy: m.RetentionPolicy.policy()}
}

func (r azRetention) policy() svcprops.RetentionPolicy {
	return svcprops.RetentionPolicy{Enabled: r.Enabled, Days: r.Days, AllowPermanentDelete: r.AllowPermanentDelete}
}
