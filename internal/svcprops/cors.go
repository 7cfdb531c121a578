package svcprops

import (
	"net/http"
	"strconv"
	"strings"
)

// CORS outcome of matching a request against the rules.

// Preflight answers an OPTIONS preflight request. It returns false when no
// rule allows it (the caller answers 403 CorsPreflightFailure).
func (p Properties) Preflight(h http.Header, origin, method string) (http.Header, bool) {
	requested := splitList(h.Get("Access-Control-Request-Headers"))
	for _, rule := range p.rules() {
		if !rule.allowsOrigin(origin) || !rule.allowsMethod(method) || !rule.allowsHeaders(requested) {
			continue
		}
		out := http.Header{}
		out.Set("Access-Control-Allow-Origin", rule.originValue(origin))
		out.Set("Access-Control-Allow-Methods", strings.ToUpper(method))
		if len(requested) > 0 {
			out.Set("Access-Control-Allow-Headers", strings.Join(requested, ","))
		}
		out.Set("Access-Control-Max-Age", strconv.Itoa(rule.MaxAgeInSeconds))
		out.Set("Access-Control-Allow-Credentials", "true")
		out.Set("Vary", "Origin")
		return out, true
	}
	return nil, false
}

// Actual returns the CORS headers for a request carrying Origin, or nil when
// no rule matches (the request is served without CORS headers).
func (p Properties) Actual(origin, method string) http.Header {
	for _, rule := range p.rules() {
		if !rule.allowsOrigin(origin) || !rule.allowsMethod(method) {
			continue
		}
		out := http.Header{}
		out.Set("Access-Control-Allow-Origin", rule.originValue(origin))
		if rule.ExposedHeaders != "" {
			out.Set("Access-Control-Expose-Headers", strings.Join(splitList(rule.ExposedHeaders), ","))
		}
		if rule.originValue(origin) != "*" {
			out.Set("Access-Control-Allow-Credentials", "true")
		}
		out.Set("Vary", "Origin")
		return out
	}
	return nil
}

func (p Properties) rules() []CorsRule {
	if p.Cors == nil {
		return nil
	}
	return p.Cors.Rules
}

func (r CorsRule) allowsOrigin(origin string) bool {
	for _, o := range splitList(r.AllowedOrigins) {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// originValue is the Allow-Origin answer: "*" for a wildcard rule, else the
// origin itself.
func (r CorsRule) originValue(origin string) string {
	for _, o := range splitList(r.AllowedOrigins) {
		if o == "*" {
			return "*"
		}
	}
	return origin
}

func (r CorsRule) allowsMethod(method string) bool {
	for _, m := range splitList(r.AllowedMethods) {
		if strings.EqualFold(m, method) {
			return true
		}
	}
	return false
}

// allowsHeaders checks each requested header against the rule's list, whose
// entries are exact names, prefixes ending in "*", or "*" alone.
func (r CorsRule) allowsHeaders(requested []string) bool {
	allowed := splitList(r.AllowedHeaders)
	for _, h := range requested {
		ok := false
		for _, a := range allowed {
			if a == "*" || strings.EqualFold(a, h) ||
				(strings.HasSuffix(a, "*") && strings.HasPrefix(strings.ToLower(h), strings.ToLower(strings.TrimSuffix(a, "*")))) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
